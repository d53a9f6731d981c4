/**
 * What is wrong with a URL a person typed into a variable, first cause first: a missing or other
 * scheme, a port out of range, no host, or text no URL parser accepts. WHATWG's parser (`new URL`)
 * answers only "Invalid URL", which for `redis://cache:99999` hides that the port is the problem.
 */

/** The problem as the end of a sentence that starts with the variable's name; undefined when the URL is fine. */
export function urlProblem(raw: string, protocols: readonly string[]): string | undefined {
  const starts = protocols.map((p) => `${p}://`);
  const accepted = `${starts.slice(0, -1).join(", ")}${starts.length > 1 ? " or " : ""}${starts.at(-1)}`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(raw);
  if (!scheme || !protocols.includes(scheme[1].toLowerCase())) return `must be a URL starting with ${accepted}`;
  const authority = raw.slice(scheme[0].length).split(/[/?#]/, 1)[0];
  const hostAndPort = authority.slice(authority.lastIndexOf("@") + 1);
  const afterHost = hostAndPort.startsWith("[") ? hostAndPort.slice(hostAndPort.indexOf("]") + 1) : hostAndPort;
  const port = /:(\d+)$/.exec(afterHost)?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
    return `has port ${port}: a port must be from 1 to 65535`;
  if (!URL.canParse(raw)) return "is not a valid URL: percent-encode any @, #, / or space in its user name or password";
  if (new URL(raw).hostname === "") return `must name a host after ${scheme[0]}`;
  return undefined;
}
