/**
 * Whether the server's address can be bound, asked before anything is written: the embedded
 * store's first start runs initdb into the data dir (seconds, hundreds of MB), which a busy port
 * would otherwise be found only after. The real listen still handles a port taken in between.
 */
import { createServer } from "node:net";

/** The bind error (`EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`), or undefined when host:port is free now. */
export function bindProblem(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (err: NodeJS.ErrnoException) => resolve(err));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/** The one line a bind error is told in. */
export function bindMessage(host: string, port: number, err: NodeJS.ErrnoException): string {
  const why =
    err.code === "EADDRINUSE"
      ? `port ${port} is already in use; set PORT to a free port`
      : err.code === "EACCES"
        ? `port ${port} needs privileges this process lacks; set PORT to 1024 or above`
        : err.code === "EADDRNOTAVAIL"
          ? `${host} is not an address of this machine; set HOST (0.0.0.0 for every interface)`
          : err.message;
  return `agentport cannot listen on ${host}:${port}: ${why}`;
}
