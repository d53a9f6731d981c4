/**
 * Refusals by Node's HTTP parser, before Fastify sees a request (headers too large, a malformed
 * request line, a request that timed out): answered in the OpenAI envelope like every other error,
 * then the connection is closed — the parser cannot continue on it.
 */
import type { Socket } from "node:net";
import { headersTooLarge, malformedRequest, requestTimeout, urlTooLong, type ApiError } from "../errors.js";

interface ClientError extends Error {
  code?: string;
}

function toApiError(err: ClientError): ApiError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return headersTooLarge();
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return requestTimeout();
    case "HPE_URI_TOO_LONG":
      return urlTooLong();
    default:
      return malformedRequest();
  }
}

export function clientErrorHandler(err: ClientError, socket: Socket): void {
  // A reset by the client, or a socket we can no longer write: nothing to answer.
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const apiError = toApiError(err);
  const body = JSON.stringify(apiError.toJSON());
  socket.end(
    `HTTP/1.1 ${apiError.statusCode} ${STATUS_TEXT[apiError.statusCode] ?? "Bad Request"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "X-Content-Type-Options: nosniff\r\n" +
      "Connection: close\r\n\r\n" +
      body,
  );
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  414: "URI Too Long",
  431: "Request Header Fields Too Large",
};
