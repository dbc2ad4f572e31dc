// The client selector that the users and sessions pages share.
import { admin } from "./api.js";
import { attempt, el } from "./ui.js";

/** A <select> of the clients (preselecting `selected`), or null (with an empty state in `out`) when there are none. */
export async function clientPicker(id, selected, out) {
  const answer = await attempt(out, () => admin("GET", "clients"));
  if (!answer) return null;
  if (!answer.clients.length) {
    out.append(el("div", { class: "empty" }, "No clients yet — ", el("a", { href: "#/clients" }, "create one"), "."));
    return null;
  }
  const select = el("select", { id }, answer.clients.map((c) => el("option", { value: c.clientKey, selected: c.clientKey === selected }, c.name + " (" + c.clientKey + ")")));
  return { select, label: el("label", { for: id }, "Client") };
}