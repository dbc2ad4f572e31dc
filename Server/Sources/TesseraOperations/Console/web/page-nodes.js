// Verifier nodes: health (device changes waiting, last delivery error), enable and disable.
import { admin, q } from "./api.js";
import { attempt, badge, dangerButton, el, heading, table, time } from "./ui.js";

export async function render(view) {
  const out = el("div");
  const list = el("div");
  const key = el("p", { class: "muted" });
  view.append(...heading("Verifier nodes", "Independent nodes that attest each login. Device changes wait in a queue per node until it acknowledges them."), key, out, el("div", { class: "card" }, list));

  async function load() {
    const answer = await attempt(out, () => admin("GET", "nodes"));
    if (!answer) return;
    key.replaceChildren("Server key (tessera node --server-key): ", el("code", {}, answer.serverKey));
    list.replaceChildren(table([
      { title: "Node", cell: (n) => [el("strong", {}, n.name), el("div", {}, el("code", {}, n.nodeId))] },
      { title: "URL", cell: (n) => el("code", {}, n.url), wide: true },
      { title: "Health", cell: (n) => health(n) },
      { title: "Waiting", cell: (n) => String(n.pendingDevices || 0) },
      { title: "Last error", cell: (n) => n.lastError || "—", wide: true },
      { title: "Added", cell: (n) => time(n.createdAt), wide: true },
      { title: "", cell: (n) => dangerButton(n.enabled ? "Disable" : "Enable", async () => {
        if (await attempt(out, () => admin("POST", "nodes/" + q(n.nodeId) + (n.enabled ? "/disable" : "/enable")).then(() => true))) await load();
      }) },
    ], answer.nodes, "No verifier nodes yet — register one with `tessera admin node add`.", (n) => ({ "data-node-id": n.nodeId })));
  }

  function health(node) {
    if (!node.enabled) return badge("disabled", "warn");
    if (node.lastError) return badge("failing", "bad");
    return node.pendingDevices ? badge("catching up", "warn") : badge("in sync", "ok");
  }
  await load();
}