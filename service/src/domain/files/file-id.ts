/**
 * File ids that sort in creation order: `file-` + 12 hex digits of milliseconds + 4 of a
 * per-millisecond counter + 16 random. List pages by id, so a cursor (`after`) needs no lookup
 * and stays valid after its file is deleted.
 */
import { randomBytes } from "node:crypto";

let lastMs = 0;
let counter = 0;

export function newFileId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xffff) {
    // More than 65536 ids in one millisecond: borrow the next one to stay ordered.
    lastMs += 1;
    counter = 0;
  }
  return `file-${lastMs.toString(16).padStart(12, "0")}${counter.toString(16).padStart(4, "0")}${randomBytes(8).toString("hex")}`;
}

/** Creation time encoded in an id. */
export function fileIdTime(id: string): Date {
  return new Date(parseInt(id.slice(5, 17), 16));
}
