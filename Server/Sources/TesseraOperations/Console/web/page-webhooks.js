// Webhooks of a client (Standard Webhooks): endpoints, their secrets (shown once), a test event,
// and the delivery history of an endpoint, where a delivery can be sent again.
import { admin, q } from "./api.js";
import { attempt, badge, dangerButton, el, heading, secretBox, table, time } from "./ui.js";
import { clientPicker } from "./picker.js";

const SEALED = "Tessera keeps it encrypted, to sign with, and never shows it again.";

export async function render(view, params) {
  const out = el("div");
  const message = el("div");
  const list = el("div");
  const history = el("div");
  const picker = await clientPicker("webhooks-client", params.get("client"), out);
  if (!picker) { view.append(...heading("Webhooks"), out); return; }
  picker.select.addEventListener("change", () => { location.hash = "#/webhooks?client=" + q(picker.select.value); });
  const url = el("input", { id: "webhook-url", required: true, type: "url", placeholder: "https://example.com/hooks/tessera" });
  const types = el("input", { id: "webhook-types", value: "*", placeholder: "login.*, device.revoked" });
  const form = el("form", { class: "card", id: "webhook-form" },
    el("h2", {}, "New endpoint"),
    el("div", { class: "row" },
      el("div", { class: "grow" }, picker.label, picker.select),
      el("div", { class: "grow" }, el("label", { for: "webhook-url" }, "URL"), url),
      el("div", { class: "grow" }, el("label", { for: "webhook-types" }, "Event types (comma-separated; * for all)"), types),
      el("button", { type: "submit", id: "webhook-create" }, "Add endpoint")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const eventTypes = types.value.split(",").map((s) => s.trim()).filter(Boolean);
    const created = await attempt(message, () => admin("POST", "clients/" + q(picker.select.value) + "/webhooks", { url: url.value.trim(), eventTypes }));
    if (!created) return;
    url.value = "";
    message.replaceChildren(secretBox("Signing secret of " + created.endpoint.url, created.secret, SEALED));
    await load();
  });
  view.append(...heading("Webhooks", "Signed deliveries of the client's events (Standard Webhooks), retried for about a day; receivers de-duplicate by webhook-id."),
    form, out, message, el("div", { class: "card" }, list), history);

  async function load() {
    const answer = await attempt(list, () => admin("GET", "clients/" + q(picker.select.value) + "/webhooks"));
    if (!answer) return;
    list.replaceChildren(table([
      { title: "URL", cell: (e) => [el("code", {}, e.url), el("div", { class: "muted" }, e.id)] },
      { title: "Events", cell: (e) => e.eventTypes.join(", "), wide: true },
      { title: "State", cell: (e) => (e.enabled ? badge("enabled", "ok") : badge("disabled" + (e.disabledReason ? ": " + e.disabledReason : ""), "bad")) },
      { title: "Created", cell: (e) => time(e.createdAt), wide: true },
      { title: "", cell: (e) => el("div", { class: "row" },
        button("Deliveries", () => showHistory(e)),
        button("Send test", async () => {
          if (await attempt(message, () => admin("POST", "webhooks/" + q(e.id) + "/test").then(() => true))) await showHistory(e);
        }),
        button(e.enabled ? "Disable" : "Enable", async () => {
          if (await attempt(message, () => admin("PATCH", "webhooks/" + q(e.id), { enabled: !e.enabled }).then(() => true))) await load();
        }),
        dangerButton("Rotate secret", async () => {
          const rotated = await attempt(message, () => admin("POST", "webhooks/" + q(e.id) + "/rotate-secret"));
          if (rotated) message.replaceChildren(secretBox("New signing secret of " + e.url + " (the old one still signs for a day)", rotated.secret, SEALED));
        }),
        dangerButton("Delete", async () => {
          if (await attempt(message, () => admin("DELETE", "webhooks/" + q(e.id)).then(() => true))) { history.replaceChildren(); await load(); }
        })) },
    ], answer.endpoints, "No webhook endpoints for this client — add one above.", (e) => ({ "data-endpoint-id": e.id })));
  }

  async function showHistory(endpoint) {
    const page = await attempt(history, () => admin("GET", "webhooks/" + q(endpoint.id) + "/deliveries?limit=50"));
    if (!page) return;
    history.replaceChildren(el("div", { class: "card" }, el("h2", {}, "Deliveries to " + endpoint.url), table([
      { title: "Event", cell: (d) => [el("strong", {}, d.eventType), el("div", {}, el("code", {}, d.eventId))] },
      { title: "State", cell: (d) => badge(d.status, d.status === "delivered" ? "ok" : d.status === "pending" ? "warn" : "bad") },
      { title: "Attempts", cell: (d) => String(d.attempts) },
      { title: "Last answer", cell: (d) => (d.lastStatus ? String(d.lastStatus) : "") + (d.lastError ? " " + d.lastError : "") || "—", wide: true },
      { title: "Next try", cell: (d) => time(d.nextAttemptAt), wide: true },
      { title: "Created", cell: (d) => time(d.createdAt), wide: true },
      { title: "", cell: (d) => button("Send again", async () => {
        if (await attempt(message, () => admin("POST", "webhooks/" + q(endpoint.id) + "/deliveries/" + q(d.id) + "/redeliver").then(() => true))) await showHistory(endpoint);
      }) },
    ], page.deliveries, "No deliveries yet — send a test event.", (d) => ({ "data-delivery-id": d.id }))));
  }

  function button(text, action) {
    const b = el("button", { type: "button", class: "quiet" }, text);
    b.addEventListener("click", async () => { b.disabled = true; await action(); b.disabled = false; });
    return b;
  }
  await load();
}