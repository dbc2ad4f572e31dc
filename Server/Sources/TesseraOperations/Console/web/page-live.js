// Authentications as they happen: login, OTP, device and session events from the audit log (server-sent events).
import { el, heading } from "./ui.js";

export function render(view) {
  const status = el("span", { id: "live-status", class: "badge warn" }, "connecting");
  const list = el("ul", { id: "live-list", class: "live" });
  const empty = el("div", { class: "empty" }, "Waiting for logins, OTPs and device events…");
  view.append(...heading("Live", "Logins, one-time codes, devices and sessions as they happen, on every instance (newest first)."),
    el("div", { class: "card" }, el("p", {}, "Stream: ", status), empty, list));

  const source = new EventSource("/v1/admin/events");
  source.addEventListener("open", () => { status.textContent = "connected"; status.className = "badge ok"; });
  source.addEventListener("error", () => { status.textContent = "reconnecting"; status.className = "badge warn"; });
  source.addEventListener("audit", (event) => {
    const entry = JSON.parse(event.data);
    empty.hidden = true;
    for (const old of list.querySelectorAll("li.fresh")) old.classList.remove("fresh");
    const subject = [entry.clientKey && "client " + entry.clientKey, entry.userId && "user " + (entry.userKey || entry.userId),
      entry.deviceId && "device " + entry.deviceId].filter(Boolean).join(" · ");
    list.prepend(el("li", { class: "fresh", "data-type": entry.type, "data-seq": entry.seq },
      el("span", { class: "muted" }, new Date(entry.time).toLocaleTimeString()),
      el("code", {}, entry.type),
      el("span", { class: "detail" }, subject || entry.actor, entry.details !== "{}" ? el("span", { class: "muted" }, " " + entry.details) : null)));
    while (list.children.length > 200) list.lastChild.remove();
  });
  return () => source.close();
}