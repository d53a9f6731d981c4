import { parseBytes } from "../../service/src/byte-size.js";

export { parseBytes };

/** True when the string is a byte size nginx accepts. */
export function isByteSize(value: string | number): boolean {
  return parseBytes(value) !== undefined;
}
