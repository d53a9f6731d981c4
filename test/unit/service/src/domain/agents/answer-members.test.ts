import { describe, expect, it } from "vitest";
import { StreamChunks, membersAfterHead } from "../../../../../../service/src/domain/agents/answer-members.js";

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

describe("a stream's chunks, read past the head the previous chunk shared", () => {
  const head = (id: string, model = "m") =>
    `{"id":"${id}","object":"chat.completion.chunk","created":1,"model":"${model}",`;
  const delta = (text: string) => `"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}`;
  // Each chunk after the first may be read from the shared head; each answer must be the walk's.
  const stream = [
    head("a") + delta("one"),
    head("a") + delta("two"),
    head("a") + ` "system_fingerprint":"fp" , ` + delta("three") + "  \n",
    head("a") + `"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_1","type":"function"}]}}]}`,
    head("a") + `"choices":[],"model":"theirs","usage":null}`,
    head("a") + `"choices":[],"id":"theirs"}`,
    head("b") + delta("four"),
    head("b") + delta("five"),
    head("b", "other") + delta("six"),
    `{"choices":[],"id":"c","object":"o","created":2,"model":"m","usage":{"total_tokens":3}}`,
    `{"id":"c","object":"o","created":2,"model":"m"}`,
    head("b", "other") + `"usage":{"prompt_tokens":1},"choices":[]}`,
    `[1]`,
    head("b", "other") + `"error":{"message":"boom"}}`,
  ];
  /** Chunks that are not JSON, each after a chunk that taught the reader its head. */
  const broken = [
    head("b") + `5}`,
    head("b") + "}",
    head("b") + `"x":"}"`,
    head("b") + `"x":1}}`,
    head("b") + `"x":1} x`,
    head("b") + `"x":1,}`,
    head("b") + `"x":tru}`,
  ];

  it("gives, chunk by chunk, exactly the walk's members and the parse's choices, usage and error", () => {
    const reader = new StreamChunks();
    for (const chunk of stream) {
      const whole = JSON.parse(chunk) as Record<string, unknown>;
      const read = reader.read(chunk) as Record<string, unknown>;
      expect(reader.members, chunk).toBe(whole && typeof whole === "object" ? membersAfterHead(chunk) : undefined);
      for (const name of ["choices", "usage", "error", "system_fingerprint"])
        expect(read[name], chunk).toEqual(whole[name]);
    }
  });

  it("refuses a chunk that is not JSON as JSON.parse does, whether or not it shares the head", () => {
    for (const chunk of broken) {
      expect(() => JSON.parse(chunk), chunk).toThrow(SyntaxError);
      const reader = new StreamChunks();
      reader.read(head("b") + delta("x"));
      expect(reader.head).toBe(head("b"));
      expect(() => reader.read(chunk), chunk).toThrow(SyntaxError);
    }
  });

  it("reads a later chunk from the shared head, and walks again when a head key comes back", () => {
    const reader = new StreamChunks();
    reader.read(stream[0]);
    expect(reader.head).toBe(head("a"));
    // Read from the head: the head's members are not parsed again.
    expect(reader.read(stream[1])).toEqual(JSON.parse("{" + delta("two")));
    // A head key later in the chunk (a nested tool call id included) is only dropped by a walk: the
    // walk runs, and the head learned stays the same.
    expect(reader.read(stream[4])).toMatchObject({ id: "a", model: "theirs" });
    expect(reader.members).toBe('"choices":[],"usage":null');
    expect(reader.head).toBe(head("a"));
    // A chunk whose head differs is walked and its own head kept for the next.
    reader.read(stream[6]);
    expect(reader.head).toBe(head("b"));
    // Neither a head that is not first nor a chunk without the whole head teaches one.
    reader.read(stream[9]);
    reader.read(stream[10]);
    expect(reader.head).toBe(head("b"));
  });

  it("agrees with a whole parse and a walk on thousands of chunks with a character changed", () => {
    // A fixed-seed generator: the same chunks on every run.
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const alphabet = ['"', ",", ":", "{", "}", "[", "]", " ", "\\", "a", "1", "n", "e"];
    const bases = [stream[0], stream[2], stream[3], stream[4], head("a") + `"choices":[],"usage":{"total_tokens":3}}`];
    let fastReads = 0;
    for (let n = 0; n < 4000; n++) {
      const base = bases[next(bases.length)];
      const at = head("a").length + next(base.length - head("a").length);
      const edit = next(3);
      const chunk =
        edit === 0
          ? base.slice(0, at) + base.slice(at + 1)
          : base.slice(0, at) + alphabet[next(alphabet.length)] + base.slice(at + (edit === 1 ? 0 : 1));
      const reader = new StreamChunks();
      reader.read(stream[0]);
      let whole: unknown;
      try {
        whole = JSON.parse(chunk);
      } catch {
        expect(() => reader.read(chunk), chunk).toThrow(SyntaxError);
        continue;
      }
      const read = reader.read(chunk) as Record<string, unknown> | null;
      expect(reader.members, chunk).toBe(
        typeof whole === "object" && whole !== null ? membersAfterHead(chunk) : undefined,
      );
      if (read && typeof read === "object" && !("id" in read)) fastReads++;
      if (reader.members !== undefined)
        for (const name of ["choices", "usage", "error"])
          expect(read?.[name], chunk).toEqual((whole as Record<string, unknown>)[name]);
    }
    expect(fastReads).toBeGreaterThan(500);
  });
});
