import { describe, expect, it } from "vitest";
import { membersAfterHead } from "../../../service/src/domain/agents/answer-members.js";

describe("an upstream answer's members after its head", () => {
  it("keeps every other member byte for byte, in the upstream's order, wherever the head members are", () => {
    const tail =
      '"system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"a \\"}\\" b"},"logprobs":null,"finish_reason":null}],"usage":null';
    expect(membersAfterHead(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m",${tail}}`)).toBe(tail);
    expect(membersAfterHead(`{"id":"x","created":1,"model":"m","object":"chat.completion.chunk",${tail}}`)).toBe(tail);
    expect(membersAfterHead('{ "choices" : [] , "id":"x", "usage":{"a":[1,{"b":"}"}]}, "model":"m" }\n')).toBe(
      '"choices" : [],"usage":{"a":[1,{"b":"}"}]}',
    );
    expect(membersAfterHead('{"error":{"message":"boom"}}')).toBe('"error":{"message":"boom"}');
    expect(membersAfterHead('{"id":"x"}')).toBe("");
    // Only the head's own names are dropped: an inherited property name is an ordinary key.
    expect(membersAfterHead('{"toString":1,"n":-1.5e3,"ok":true,"s":"\\\\","id":"q"}')).toBe(
      '"toString":1,"n":-1.5e3,"ok":true,"s":"\\\\"',
    );
  });

  it("drops a head member the upstream repeats after its head: a later model or id never overrides ours", () => {
    const answer =
      '{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"content":"hi"}}],"model":"theirs","id":"chatcmpl-theirs","usage":null}';
    const members = membersAfterHead(answer);
    expect(members).toBe('"choices":[{"index":0,"message":{"content":"hi"}}],"usage":null');
    // The client's parser keeps the last of duplicate keys: ours must be the only ones.
    expect(JSON.parse(`{"id":"ours","model":"agentport/a",${members}}`)).toMatchObject({
      id: "ours",
      model: "agentport/a",
    });
  });

  it("refuses what is not a JSON object it can walk", () => {
    for (const text of ["[1]", '{"a":1', '{"id":"x",}', '{"a" 1}', '{"a":"open}', "", "null"])
      expect(membersAfterHead(text), text).toBeUndefined();
  });
});
