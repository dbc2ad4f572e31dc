// Users of a client with their devices and passkeys: search (user key, name, e-mail, phone), device and passkey revocation.
import { admin, q } from "./api.js";
import { attempt, badge, dangerButton, el, heading, table, time } from "./ui.js";
import { clientPicker } from "./picker.js";

export async function render(view, params) {
  const out = el("div");
  const list = el("div", { class: "users" });
  const search = el("input", { id: "users-search", type: "search", placeholder: "user key, name, e-mail or phone" });
  const picker = await clientPicker("users-client", params.get("client"), out);
  if (!picker) { view.append(...heading("Users & devices"), out); return; }
  let users = [];
  view.append(...heading("Users & devices", "A client's users, each with their devices and passkeys. Revoking a device ends its sessions and tells every verifier node; a revoked passkey signs in no more."),
    el("div", { class: "card row" }, el("div", { class: "grow" }, picker.label, picker.select), el("div", { class: "grow" }, el("label", { for: "users-search" }, "Search"), search)),
    out, el("div", { class: "card" }, list));

  function show() {
    const needle = search.value.trim().toLowerCase();
    const shown = users.filter((u) => !needle || [u.userKey, u.name, u.email, u.phone].some((v) => (v || "").toLowerCase().includes(needle)));
    list.replaceChildren(table([
      { title: "User", cell: (u) => [el("strong", {}, u.userKey), el("div", { class: "muted" }, u.name)] },
      { title: "Contact", cell: (u) => [u.email, el("div", { class: "muted" }, u.phone)], wide: true },
      { title: "Devices", cell: (u) => devices(u) },
      { title: "Passkeys", cell: (u) => passkeys(u) },
      { title: "", cell: (u) => el("button", { type: "button", class: "quiet", onclick: () => { location.hash = "#/sessions?client=" + q(picker.select.value) + "&user=" + q(u.userKey); } }, "Sessions") },
    ], shown, users.length ? "No user matches “" + search.value + "”." : "No users yet — they appear when an app signs them up.", (u) => ({ "data-user-key": u.userKey })));
  }

  function devices(user) {
    if (!user.devices.length) return el("span", { class: "muted" }, "none");
    return el("div", { class: "devices" }, user.devices.map((d) => el("div", { class: "device row", "data-device-id": d.deviceId },
      el("code", {}, d.deviceId),
      el("span", { class: "device-status" }, d.status === "active" ? badge("active", "ok") : badge(d.status, "bad")),
      el("span", { class: "muted" }, (d.name || d.os) + " · " + d.appVersion + " · " + time(d.createdAt)),
      el("span", { class: "muted device-push", title: d.pushChangedAt ? "since " + time(d.pushChangedAt) : "" },
        d.push === "registered" ? "push: " + (d.pushProvider || "registered") : d.push === "cleared" ? "push cleared by the provider" : "no push (polls)"),
      appAttest(d.appAttest),
      d.status === "active" ? dangerButton("Revoke", async () => {
        if (await attempt(out, () => admin("POST", "devices/" + q(d.deviceId) + "/revoke").then(() => true))) await load();
      }, { class: "danger revoke" }) : null)));
  }

  // A device's App Attest state (issue 41): attested, with its environment, counter and time, or not attested.
  function appAttest(state) {
    if (!state || !state.attested) return el("span", { class: "muted device-attest" }, "App Attest: not attested");
    return el("span", { class: "device-attest", title: "key " + state.keyId + " · attested " + time(state.attestedAt) },
      badge("App Attest: " + state.environment + ", counter " + state.counter, "ok"));
  }

  // A user's passkeys, loaded when asked for (one call per user, not one per row of the list).
  function passkeys(user) {
    const box = el("div", { class: "passkeys" });
    async function fill() {
      const list = await attempt(out, () => admin("GET", "users/" + q(user.userKey) + "/passkeys?clientKey=" + q(picker.select.value)));
      if (!list) return;
      box.replaceChildren(list.passkeys.length ? el("div", {}, list.passkeys.map((k) => el("div", { class: "passkey row", "data-passkey-id": k.id },
        el("strong", {}, k.name),
        k.flaggedAt ? badge("flagged", "bad") : badge(k.backupEligible ? "synced" : "device-bound", "ok"),
        el("span", { class: "muted" }, (k.authenticatorName ? k.authenticatorName + " · " : "") + k.algorithm + " · " + time(k.createdAt) + (k.lastUsedAt ? " · used " + time(k.lastUsedAt) : "")),
        dangerButton("Revoke", async () => {
          if (await attempt(out, () => admin("DELETE", "passkeys/" + q(k.id)).then(() => true))) await fill();
        }, { class: "danger revoke-passkey" })))) : el("span", { class: "muted passkeys-none" }, "none"));
    }
    box.append(el("button", { type: "button", class: "quiet show-passkeys", onclick: fill }, "Show"));
    return box;
  }

  async function load() {
    const page = await attempt(out, () => admin("GET", "users?clientKey=" + q(picker.select.value) + "&limit=500"));
    if (!page) return;
    users = page.users;
    show();
    if (page.nextCursor) out.append(el("p", { class: "muted" }, "Showing the first 500 users (by user key)."));
  }

  search.addEventListener("input", show);
  picker.select.addEventListener("change", () => { location.hash = "#/users?client=" + q(picker.select.value); });
  await load();
}