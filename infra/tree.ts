/** The values-tree reader lives in the policy pack, which must install alone; the program reads it from there. */
export { at } from "./policy/tree.js";
