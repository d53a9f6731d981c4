/** Ids of responses and their items, in OpenAI's prefixes: `resp_`, `msg_`, `fc_`. */
import { randomBytes } from "node:crypto";

/** 24 random bytes: unguessable, so an id alone reveals nothing across projects. */
export const newId = (prefix: "resp" | "msg" | "fc" | "fco") => `${prefix}_${randomBytes(24).toString("hex")}`;

/** What a stored response id looks like; anything else is not looked up. */
export const RESPONSE_ID = /^resp_[A-Za-z0-9_-]{1,128}$/;
