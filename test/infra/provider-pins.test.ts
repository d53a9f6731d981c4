import { describe, expect, it } from "vitest";
import { readStackFile } from "../../infra/plan/stack-file.js";

/** A prod stack names the one account or subscription it may deploy to, so a wrong login fails early. */
describe("cloud accounts pinned per stack", () => {
  it.each(["prod-aws", "staging-aws"])("%s allows only its AWS account", (stack) => {
    expect(readStackFile(stack).config["aws:allowedAccountIds"]).toEqual([expect.stringMatching(/^\d{12}$/)]);
  });
  it("prod-azure pins its subscription", () => {
    expect(String(readStackFile("prod-azure").config["azure-native:subscriptionId"])).toMatch(/^[0-9a-f-]{36}$/);
  });
});
