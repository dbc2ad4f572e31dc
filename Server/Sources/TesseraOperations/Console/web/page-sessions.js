// A user's sessions (password and flow log-ins, device sessions), with revocation.
import { admin, q } from "./api.js";
import { attempt, badge, dangerButton, el, heading, table, time } from "./ui.js";
import { clientPicker } from "./picker.js";

export async function render(view, params) {
  const out = el("div");
  const list = el("div");
  const picker = await clientPicker("sessions-client", params.get("client"), out);
  if (!picker) { view.append(...heading("Sessions"), out); return; }
  const user = el("input", { id: "sessions-user", required: true, value: params.get("user") || "", placeholder: "user key" });
  const form = el("form", { class: "card row" }, el("div", { class: "grow" }, picker.label, picker.select),
    el("div", { class: "grow" }, el("label", { for: "sessions-user" }, "User key"), user), el("button", { type: "submit" }, "Show sessions"));
  form.addEventListener("submit", (event) => { event.preventDefault(); location.hash = "#/sessions?client=" + q(picker.select.value) + "&user=" + q(user.value.trim()); });
  view.append(...heading("Sessions", "Revoking a session logs that app out at its next call."), form, out, el("div", { class: "card" }, list));
  if (!user.value) { list.append(el("div", { class: "empty" }, "Pick a client and a user to see their sessions.")); return; }

  async function load() {
    const answer = await attempt(out, () => admin("GET", "users/" + q(user.value) + "/sessions?clientKey=" + q(picker.select.value)));
    if (!answer) return;
    list.replaceChildren(table([
      { title: "Session", cell: (s) => el("code", {}, s.id) },
      { title: "Device", cell: (s) => (s.deviceId ? el("code", {}, s.deviceId) : "—"), wide: true },
      { title: "Last used", cell: (s) => time(s.lastUsedAt) },
      { title: "Expires", cell: (s) => time(s.expiresAt), wide: true },
      { title: "State", cell: (s) => (s.revokedAt ? badge("revoked", "bad") : badge("live", "ok")) },
      { title: "", cell: (s) => (s.revokedAt ? "" : dangerButton("Revoke", async () => {
        if (await attempt(out, () => admin("DELETE", "sessions/" + q(s.id)).then(() => true))) await load();
      })) },
    ], answer.sessions, "No sessions for this user.", (s) => ({ "data-session-id": s.id })));
  }
  await load();
}