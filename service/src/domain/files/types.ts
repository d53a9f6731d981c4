/** What the files module stores and returns, independent of HTTP. */

/** Purposes a client may upload with, as OpenAI names them. */
export const FILE_PURPOSES = ["assistants", "batch", "fine-tune", "vision", "user_data", "evals"] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];
export const isFilePurpose = (p: string): p is FilePurpose => (FILE_PURPOSES as readonly string[]).includes(p);

export interface FileRecord {
  id: string;
  projectId: string;
  filename: string;
  purpose: string;
  bytes: number;
  mimeType: string;
  /** Hex SHA-256 of the content. */
  sha256: string;
  createdAt: Date;
}

export interface ListOptions {
  /** Id of the last file of the previous page; the page starts after it in `order`. */
  after?: string;
  limit: number;
  order: "asc" | "desc";
  purpose?: string;
}
