/** Key management over the service's HTTP API with a project member's token (owner or admin). */
import type { Http } from "./http.js";
import type { KeyAdmin } from "./types.js";

export function httpKeyAdmin(
  http: Http,
  baseUrl: string,
  project: string,
  memberToken: () => Promise<string>,
): KeyAdmin {
  const base = `${baseUrl}/v1/organization/projects/${encodeURIComponent(project)}/api_keys`;
  return {
    async create(name) {
      const res = await http.json(base, {
        method: "POST",
        key: await memberToken(),
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      const body = res.body as { id?: string; secret?: string } | undefined;
      if (res.status !== 201 || !body?.id || !body.secret)
        throw new Error(`creating a key failed: ${res.status} ${res.text.slice(0, 200)}`);
      return { id: body.id, secret: body.secret };
    },
    async delete(id) {
      const res = await http.json(`${base}/${encodeURIComponent(id)}`, { method: "DELETE", key: await memberToken() });
      if (res.status !== 200) throw new Error(`deleting key ${id} failed: ${res.status} ${res.text.slice(0, 200)}`);
    },
  };
}
