-- Uploaded files. The id sorts in creation order (time prefix) and is the paging key, so a
-- cursor stays valid after its file is deleted; "C" collation makes the order byte order.
CREATE TABLE files (
  id          text COLLATE "C" PRIMARY KEY,
  project_id  text NOT NULL,
  filename    text NOT NULL,
  purpose     text NOT NULL,
  bytes       bigint NOT NULL,
  mime_type   text NOT NULL,
  sha256      bytea NOT NULL,
  blob_key    text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL
);
CREATE INDEX files_project ON files (project_id, id);

-- Passages of text files, for ranked retrieval; written in the same transaction as the file.
CREATE TABLE file_chunks (
  file_id     text COLLATE "C" NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  project_id  text NOT NULL,
  ord         integer NOT NULL,
  content     text NOT NULL,
  tsv         tsvector NOT NULL,
  PRIMARY KEY (file_id, ord)
);
CREATE INDEX file_chunks_tsv ON file_chunks USING gin (tsv);
CREATE INDEX file_chunks_project ON file_chunks (project_id);

-- Blobs to remove: uploads in progress (due far ahead, cleared when the file commits) and
-- blobs of deleted files or failed uploads whose delete has not succeeded yet. A sweeper retries.
CREATE TABLE blob_deletions (
  blob_key    text PRIMARY KEY,
  reason      text NOT NULL,
  not_before  timestamptz NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  last_error  text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX blob_deletions_due ON blob_deletions (not_before);
