// Result-token signing keys: the published ones (JWKS) and rotation.
import { admin, request } from "./api.js";
import { attempt, dangerButton, el, heading } from "./ui.js";

export async function render(view) {
  const out = el("div");
  const listOut = el("div");
  const list = el("ul", { id: "keys-list" });
  view.append(...heading("Signing keys", "Result tokens and ID tokens are signed with the newest key (ES256); the previous one stays published so that tokens it signed still verify."),
    el("div", { class: "card" }, el("h2", {}, "Published keys (JWKS)"), listOut, list,
      el("div", { class: "actions" }, dangerButton("Rotate signing key", async () => {
        const rotated = await attempt(out, () => admin("POST", "keys/rotate"));
        if (rotated) {
          out.append(el("div", { class: "notice" }, "New signing key: ", el("code", { id: "rotated-kid" }, rotated.kid)));
          await load();
        }
      }, { id: "keys-rotate" }))),
    out);

  async function load() {
    const jwks = await attempt(listOut, () => request("GET", "/.well-known/jwks.json"));
    if (!jwks) return;
    list.replaceChildren(...jwks.keys.map((k, index) => el("li", { "data-kid": k.kid }, el("code", {}, k.kid), " ", k.alg || "", " ", index === 0 ? "(signing)" : "(still verifies)")));
    if (!jwks.keys.length) list.replaceChildren(el("li", { class: "muted" }, "No keys published."));
  }
  await load();
}