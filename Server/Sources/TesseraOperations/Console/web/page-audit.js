// The audit log: filter by type and subject, page by sequence number, verify the hash chain and the signed checkpoints.
import { admin, q } from "./api.js";
import { attempt, el, heading, table, time } from "./ui.js";

export async function render(view, params) {
  const out = el("div");
  const list = el("div");
  const verifyOut = el("div", { id: "audit-verify-result" });
  const type = el("input", { id: "audit-type", value: params.get("type") || "", placeholder: "login.completed" });
  const subject = el("input", { id: "audit-subject", value: params.get("subject") || "", placeholder: "client key, user key, or an ID" });
  const after = Number(params.get("after") || 0);
  const form = el("form", { class: "card row" },
    el("div", { class: "grow" }, el("label", { for: "audit-type" }, "Event type"), type),
    el("div", { class: "grow" }, el("label", { for: "audit-subject" }, "Subject"), subject),
    el("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => { event.preventDefault(); go(0); });
  const verify = el("button", { type: "button", id: "audit-verify" }, "Verify the chain");
  verify.addEventListener("click", async () => {
    verify.disabled = true;
    const result = await attempt(verifyOut, () => admin("GET", "audit/verify"));
    verify.disabled = false;
    if (!result) return;
    verifyOut.append(result.ok
      ? el("div", { class: "notice", "data-ok": "true" }, "The audit log verifies: " + result.rows + " rows, " + result.checkpoints + " signed checkpoints (key " + result.keyId + ").")
      : el("div", { class: "problem", "data-ok": "false" }, "The audit log does NOT verify: " + result.problem.message));
  });
  view.append(...heading("Audit log", "Every security event, hash-chained and signed at checkpoints. Clients and users are named by their keys, their internal IDs beside them."),
    el("div", { class: "card" }, verify, verifyOut), form, out, el("div", { class: "card" }, list));

  function go(from) {
    const query = new URLSearchParams();
    if (type.value.trim()) query.set("type", type.value.trim());
    if (subject.value.trim()) query.set("subject", subject.value.trim());
    if (from) query.set("after", String(from));
    location.hash = "#/audit?" + query.toString();
  }

  let path = "audit?limit=50&after=" + after;
  if (type.value) path += "&type=" + q(type.value);
  if (subject.value) path += "&subject=" + q(subject.value);
  const page = await attempt(out, () => admin("GET", path));
  if (!page) return;
  list.replaceChildren(table([
    { title: "#", cell: (e) => String(e.seq) },
    { title: "Time", cell: (e) => time(e.time), wide: true },
    { title: "Type", cell: (e) => el("code", {}, e.type) },
    { title: "Actor", cell: (e) => e.actor },
    { title: "Subject", cell: (e) => [
        e.clientId && ["client", e.clientKey, e.clientId], e.userId && ["user", e.userKey, e.userId],
        e.deviceId && ["device", null, e.deviceId], e.sessionId && ["session", null, e.sessionId],
      ].filter(Boolean).map(([kind, key, id]) => el("div", { "data-subject": kind }, kind + " ", key ? el("strong", {}, key) : null, key ? " " : null,
        el("code", { class: key ? "muted" : "" }, id))), wide: true },
    { title: "Details", cell: (e) => (e.details === "{}" ? "" : el("code", {}, e.details)), wide: true },
  ], page.entries, after ? "No more rows." : "No audit rows match.", (e) => ({ "data-seq": e.seq })),
  el("div", { class: "actions" },
    after ? el("button", { type: "button", class: "quiet", onclick: () => go(0) }, "First page") : null,
    page.nextAfter ? el("button", { type: "button", class: "quiet", id: "audit-next", onclick: () => go(page.nextAfter) }, "Next page") : null,
    el("span", { class: "muted" }, "Chain head: row " + page.head.seq)));
}