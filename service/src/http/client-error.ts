/**
 * Refusals by Node's HTTP parser, before Fastify sees a request (headers too large, a malformed
 * request line, a request that timed out): answered in the OpenAI envelope like every other error,
 * then the connection is closed — the parser cannot continue on it.
 */
import type { Socket } from "node:net";
import { ApiError } from "../errors.js";

interface ClientError extends Error {
  code?: string;
}

function toApiError(err: ClientError): ApiError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(431, "The request headers are too large.", "invalid_request_error", null, "headers_too_large");
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return new ApiError(408, "The request was not received in time.", "invalid_request_error", null, "request_timeout");
    case "HPE_URI_TOO_LONG":
      return new ApiError(414, "The URL is too long.", "invalid_request_error", "url", "url_too_long");
    default:
      return new ApiError(400, "The HTTP request is malformed.", "invalid_request_error", null, "invalid_request");
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
