/**
 * `protect` for a stateful resource: on every stack but a throwaway one (`local`, on a kind
 * cluster), which `pulumi destroy --run-program` then removes without `pulumi state unprotect`.
 * The policy pack exempts the same stacks (policy/protection.ts), so both read one list.
 */
import * as pulumi from "@pulumi/pulumi";
import { THROWAWAY_STACKS } from "./policy/protection.js";

export const protectState = (): boolean => !THROWAWAY_STACKS.has(pulumi.getStack());
