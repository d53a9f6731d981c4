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

describe("the walk's edges: whitespace, escapes, values and every refusal", () => {
  const fullHead = '{"id":"x","object":"o","created":1,"model":"m",';

  it("reads JSON whitespace of each kind between every token", () => {
    for (const ws of [" ", "\n", "\r", "\t"])
      expect(membersAfterHead(`{${ws}"id"${ws}:${ws}"x"${ws},${ws}"a"${ws}:${ws}1${ws}}`), JSON.stringify(ws)).toBe(
        `"a"${ws}:${ws}1`,
      );
    expect(membersAfterHead("{}")).toBe("");
    expect(membersAfterHead("{ \n}")).toBe("");
    // After a whole head, the rest is kept as it is, up to the space before the closing brace.
    expect(membersAfterHead(`${fullHead}"choices":[] \n}`)).toBe('"choices":[]');
  });

  it("ends a string at its closing quote, not at an escaped one", () => {
    const members = '"a":"say \\"hi\\"","b":"c:\\\\","d":"\\\\\\"e"';
    expect(JSON.parse(`{${members}}`)).toEqual({ a: 'say "hi"', b: "c:\\", d: '\\"e' });
    expect(membersAfterHead(`{"id":"x",${members}}`)).toBe(members);
  });

  it("ends a number at the comma before a head key, and drops that key", () => {
    expect(membersAfterHead('{"a":1,"model":"m","b":2.5}')).toBe('"a":1,"b":2.5');
    expect(membersAfterHead('{"a":-1 ,"id":"x"}')).toBe('"a":-1');
  });

  it("drops a repeated head key whatever the space before its colon", () => {
    for (const ws of ["", " ", "\n "])
      expect(membersAfterHead(`${fullHead}"a":1,"model"${ws}:"theirs"}`), JSON.stringify(ws)).toBe('"a":1');
  });

  it("refuses each way a text fails to be a JSON object", () => {
    const texts = [
      '{"a:1}', // a key never closed
      '{"a" 1}', // no colon
      '{"a":1 "b":2}', // no comma
      '{"a":"x}', // a string value never closed
      '{"a":[[[1]}', // an array never closed
      '{"a":}', // no value
      '{"a":,"b":1}', // an empty value before a comma
      '{"a":1,}', // a comma and no member
      `${fullHead}1}`, // after a whole head, a member that is not a key
      // Each would read as members if one check were skipped and the next did not catch it.
      'x"a":1}', // not an object
      '{":1}', // a key that opens and never closes
      '{"a" "b":1}', // no colon, a string where it should be
      '{"a":1 x"b":2}', // no comma, one character where it should be
      '{"a":1,x":2}', // a member that does not start with a quote
      '{"a":1]}', // a number ended by a bracket that closes nothing
    ];
    for (const text of texts) expect(membersAfterHead(text), text).toBeUndefined();
  });

  it("learns a head only from a chunk that had the whole of it", () => {
    const chunks = new StreamChunks();
    chunks.read('{"id":"x","a":1}');
    expect(chunks.head).toBe("");
    chunks.read(`${fullHead}"a":1}`);
    expect(chunks.head).toBe(fullHead);
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
