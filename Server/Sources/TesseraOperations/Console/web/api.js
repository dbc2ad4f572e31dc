// Calls to the console's own server: the admin API with the session cookie, and the CSRF token on every change.
let csrf = "";

/** Keeps the session's CSRF token (from sign-in or GET /admin/session). */
export function setCsrf(token) { csrf = token || ""; }

/** An RFC 9457 problem answer: `code`, `title` and `detail` as the server sent them. */
export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || body.title || "HTTP " + status);
    this.status = status;
    this.code = body.code;
    this.title = body.title || "HTTP " + status;
    this.detail = body.detail || "";
  }
}

/** Sends a request; answers the parsed JSON (null for 204) or throws a Problem. A 401 also signs the console out.
 * A Blob (a chosen file) is sent as it is, with its own type; anything else as JSON. */
export async function request(method, path, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin", cache: "no-store" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrf;
  if (body instanceof Blob) {
    headers["Content-Type"] = body.type || "application/octet-stream";
    init.body = body;
  } else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (!response.ok) {
    let problem = {};
    try { problem = await response.json(); } catch (_) { problem = {}; }
    if (response.status === 401 && path.startsWith("/v1/admin/")) window.dispatchEvent(new Event("console:signed-out"));
    throw new Problem(response.status, problem);
  }
  return response.status === 204 ? null : response.json();
}

/** The admin API (`/v1/admin/<path>`). */
export function admin(method, path, body) { return request(method, "/v1/admin/" + path, body); }

/** A path segment or query value, escaped. */
export const q = encodeURIComponent;