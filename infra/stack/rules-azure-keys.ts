/**
 * Azure's data-plane keys given as config: the storage account key, the Redis access key and
 * Cosmos DB's connection string. Given, the program lists no key, so the identity that previews
 * the stack needs no list action (docs/security.md, "Preview roles"). Half a set would still list
 * the rest, so it is all the stack uses, or none.
 */
import { checkable, rule, type Rule } from "./rule.js";
import type { StackSpec } from "./schema.js";

/** Each key the stack could be given, and whether the stack lists it from Azure (and so may take it). */
function keySlots(s: StackSpec): Array<{ path: string; value: string | undefined; used: boolean; what: string }> {
  const azure = s.cloud.provider === "azure";
  return [
    {
      path: "storage.secret.clouda.STORAGE_ACCESS_KEY",
      value: s.storage.secret.clouda.STORAGE_ACCESS_KEY,
      used: s.storage.provider === "AzureStorage",
      what: "storage.provider is AzureStorage",
    },
    {
      path: "data.azure.redisAccessKey",
      value: s.data.azure.redisAccessKey,
      used: azure && s.data.cache === "managed",
      what: "data.cache is managed on azure",
    },
    {
      path: "data.azure.cosmosConnectionString",
      value: s.data.azure.cosmosConnectionString,
      used: azure && s.data.docdb === "managed",
      what: "data.docdb is managed on azure",
    },
  ];
}

export const azureKeyRules: Rule[] = [
  rule(["cloud", "data", "storage"], (s, report) => {
    const slots = keySlots(s);
    for (const slot of slots)
      if (slot.value !== undefined && !slot.used) report(slot.path, `is used only when ${slot.what}: remove it`);
    const used = slots.filter((slot) => slot.used);
    const given = used.filter((slot) => slot.value !== undefined);
    if (given.length > 0 && given.length < used.length)
      for (const slot of used.filter((x) => x.value === undefined))
        report(
          slot.path,
          `is required once ${given.map((g) => g.path).join(" and ")} ${given.length === 1 ? "is" : "are"} given: the data-plane keys come from config all together (so nothing lists keys), or all from Azure`,
        );
    const uri = s.data.azure.cosmosConnectionString;
    if (checkable(uri) && !/^mongodb(\+srv)?:\/\/.+\/\?/.test(uri))
      report(
        "data.azure.cosmosConnectionString",
        'must be the account\'s "Primary MongoDB Connection String" (mongodb://<account>:<key>@<host>:10255/?ssl=true…)',
      );
  }),
];
