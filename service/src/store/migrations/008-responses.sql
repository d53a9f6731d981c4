-- Stored Responses (POST /v1/responses with `store`, OpenAI's default): the response object as
-- answered and the input items of its turn, so `previous_response_id` rebuilds a conversation on
-- any replica. Scoped to the project: another project's id is not found. JSON is kept as text
-- (escaped as JSON writes it, so a NUL in a message stores as jsonb would refuse it); the server
-- reads it whole and never queries into it. A deleted response's row is removed; responses that
-- continued it keep their own rows, and a chain through it continues from what is stored.
CREATE TABLE responses (
  id                   text COLLATE "C" PRIMARY KEY,
  project_id           text NOT NULL,
  previous_response_id text COLLATE "C",
  created_at           timestamptz NOT NULL,
  input_items          text NOT NULL,
  response             text NOT NULL,
  bytes                integer NOT NULL
);
CREATE INDEX responses_project ON responses (project_id, id);
