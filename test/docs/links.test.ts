/**
 * Every relative link in the README and the guides in docs/ points at a file that exists and, when
 * it names an anchor, at a heading of that file as GitHub slugs it (github-slugger is the library
 * GitHub's own slugs are reproduced by; marked finds the links and headings, code blocks skipped).
 */
import GithubSlugger from "github-slugger";
import { marked, type Token, type Tokens } from "marked";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const documents = [
  "README.md",
  "CHANGELOG.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** A heading's text as GitHub renders it (code spans, emphasis and links reduced to their text). */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((t) => ("tokens" in t && t.tokens ? plainText(t.tokens) : "text" in t ? String(t.text) : ""))
    .join("");
}

const anchorsByFile = new Map<string, Set<string>>();

/** The anchors GitHub gives a file's headings, duplicates numbered as it numbers them. */
function anchorsOf(file: string): Set<string> {
  const known = anchorsByFile.get(file);
  if (known) return known;
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  // Synchronous callbacks: the promises walkTokens returns are already settled.
  void marked.walkTokens(marked.lexer(readFileSync(file, "utf8")), (t) => {
    if (t.type === "heading") anchors.add(slugger.slug(plainText((t as Tokens.Heading).tokens)));
  });
  anchorsByFile.set(file, anchors);
  return anchors;
}

function linksOf(file: string): string[] {
  const links: string[] = [];
  // Synchronous callbacks: the promises walkTokens returns are already settled.
  void marked.walkTokens(marked.lexer(readFileSync(file, "utf8")), (t) => {
    if (t.type === "link" || t.type === "image") links.push((t as Tokens.Link).href);
  });
  return links;
}

/** What is wrong with one relative link of `from`, or undefined when it resolves. */
function brokenLink(from: string, href: string): string | undefined {
  const [path, anchor] = href.split("#", 2) as [string, string | undefined];
  const target = path === "" ? from : resolve(dirname(from), decodeURI(path));
  if (!existsSync(target)) return `${href}: no file ${relative(root, target)}`;
  if (anchor === undefined || statSync(target).isDirectory() || !target.endsWith(".md")) return undefined;
  if (!anchorsOf(target).has(decodeURIComponent(anchor)))
    return `${href}: no heading in ${relative(root, target)} has the anchor #${anchor}`;
  return undefined;
}

describe("documentation links", () => {
  it.each(documents)("%s: every relative link and anchor resolves", (doc) => {
    const file = join(root, doc);
    const broken = linksOf(file)
      .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href))
      .map((href) => brokenLink(file, href))
      .filter(Boolean);
    expect(broken).toEqual([]);
  });

  it("the README links every guide in docs/", () => {
    const readme = linksOf(join(root, "README.md"));
    const guides = documents.filter((d) => d.startsWith("docs/"));
    expect(guides.filter((g) => !readme.includes(g))).toEqual([]);
  });

  it("a link to a missing heading or file is reported (the check can fail)", () => {
    const readme = join(root, "README.md");
    expect(brokenLink(readme, "docs/api.md#no-such-heading")).toMatch(/no heading in docs\/api\.md/);
    expect(brokenLink(readme, "docs/nope.md")).toMatch(/no file docs\/nope\.md/);
    expect(brokenLink(readme, "docs/api.md#connect-a-client")).toBeUndefined();
  });
});
