// Clients: list, create, rotate the secret (shown once), enable/disable, and per client its policy,
// OpenID Connect redirect URIs, CIBA delivery and push settings.
import { admin, q } from "./api.js";
import { attempt, badge, dangerButton, el, heading, secretBox, table, time } from "./ui.js";

export async function render(view, params) {
  const message = el("div");
  const list = el("div");
  const detail = el("div");
  const name = el("input", { id: "client-name", required: true, maxlength: 100, placeholder: "My app" });
  const bundles = el("input", { id: "client-bundles", placeholder: "com.example.app, com.example.app.dev" });
  const form = el("form", { class: "card", id: "client-form" },
    el("h2", {}, "New client"),
    el("div", { class: "row" },
      el("div", { class: "grow" }, el("label", { for: "client-name" }, "Name"), name),
      el("div", { class: "grow" }, el("label", { for: "client-bundles" }, "Bundle identifiers (comma-separated)"), bundles),
      el("button", { type: "submit", id: "client-create" }, "Create client")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const bundleIds = bundles.value.split(",").map((s) => s.trim()).filter(Boolean);
    const created = await attempt(message, () => admin("POST", "clients", { name: name.value, bundleIds }));
    if (!created) return;
    form.reset();
    message.append(secretBox("Client secret of " + created.client.name + " (" + created.client.clientKey + ")", created.clientSecret));
    await load();
  });
  view.append(...heading("Clients", "Apps that use Tessera: their client key goes in the app, the secret in the app's backend."), form, message, el("div", { class: "card" }, list), detail);

  async function load() {
    const answer = await attempt(list, () => admin("GET", "clients"));
    if (!answer) return;
    list.replaceChildren(table([
      { title: "Name", cell: (c) => c.name },
      { title: "Client key", cell: (c) => el("code", {}, c.clientKey) },
      { title: "Bundle IDs", cell: (c) => c.bundleIds.join(", "), wide: true },
      { title: "State", cell: (c) => (c.enabled ? badge("enabled", "ok") : badge("disabled", "bad")) },
      { title: "Created", cell: (c) => time(c.createdAt), wide: true },
      { title: "", cell: (c) => el("div", { class: "actions" },
        el("button", { type: "button", class: "quiet", onclick: () => { location.hash = "#/clients?client=" + q(c.clientKey); } }, "Settings"),
        el("button", { type: "button", class: "quiet", onclick: () => { location.hash = "#/users?client=" + q(c.clientKey); } }, "Users"),
        dangerButton("Rotate secret", async () => {
          const rotated = await attempt(message, () => admin("POST", "clients/" + q(c.clientKey) + "/rotate-secret"));
          if (rotated) message.append(secretBox("New client secret of " + c.name + " (the old one no longer works)", rotated.clientSecret));
        }),
        dangerButton(c.enabled ? "Disable" : "Enable", async () => {
          if (await attempt(message, () => admin("POST", "clients/" + q(c.clientKey) + (c.enabled ? "/disable" : "/enable")) .then(() => true))) await load();
        })) },
    ], answer.clients, "No clients yet — create one above.", (c) => ({ "data-client-key": c.clientKey })));
  }

  await load();
  const selected = params.get("client");
  if (selected) await settings(detail, selected);
}

/** A client's policy, redirect URIs and push settings, each saved on its own. */
async function settings(detail, clientKey) {
  const base = "clients/" + q(clientKey);
  const card = el("div", { class: "card", id: "client-settings" }, el("h2", {}, "Settings of ", el("code", {}, clientKey)));
  detail.replaceChildren(card);

  const policyOut = el("div");
  const policy = el("textarea", { id: "client-policy", "aria-label": "Policy (JSON)" });
  const redirectOut = el("div");
  const redirects = el("textarea", { id: "client-redirects", "aria-label": "Redirect URIs, one a line" });
  const numberMatching = el("input", { type: "checkbox", id: "client-number-matching" });
  const offerPasskeys = el("input", { type: "checkbox", id: "client-offer-passkeys" });
  const logoutRedirects = el("textarea", { id: "client-logout-redirects", "aria-label": "Post-logout redirect URIs, one a line" });
  const backchannel = el("input", { type: "url", id: "client-backchannel", "aria-label": "Back-channel logout URI" });
  const displayName = el("input", { id: "client-display-name", maxlength: 60, placeholder: "the client's name" });
  const accent = el("input", { id: "client-accent", maxlength: 7, placeholder: "#0b57d0", pattern: "#[0-9a-fA-F]{6}" });
  const logoOut = el("div");
  const logoPreview = el("img", { id: "client-logo-preview", alt: "Current logo", width: 56, height: 56 });
  logoPreview.hidden = true;
  const logoFile = el("input", { type: "file", id: "client-logo", accept: "image/png,image/jpeg,image/webp" });
  const pushOut = el("div");
  const pushView = el("pre", { class: "mono" });
  const pushEdit = el("textarea", { id: "client-push", placeholder: "{\"apns\": {…}} or {\"fcm\": {…}} or {\"off\": true}", "aria-label": "Push settings (JSON)" });
  const cibaOut = el("div");
  const cibaMode = el("select", { id: "client-ciba-mode" }, el("option", { value: "poll" }, "poll"), el("option", { value: "ping" }, "ping"), el("option", { value: "push" }, "push"));
  const cibaEndpoint = el("input", { type: "url", id: "client-ciba-endpoint", placeholder: "https://app.example.com/ciba" });
  const cibaUserCode = el("input", { type: "checkbox", id: "client-ciba-user-code" });

  card.append(
    el("h2", {}, "Authenticator policy"),
    el("p", { class: "muted" }, "Allowed authenticators, PIN and password rules, devices per user (JSON, as `tessera admin client policy` takes it)."),
    policy, el("div", { class: "actions" }, el("button", { type: "button", onclick: savePolicy }, "Save policy")), policyOut,
    el("h2", {}, "OpenID Connect"),
    el("label", { for: "client-redirects" }, "Redirect URIs (one a line, matched exactly)"), redirects,
    el("label", { for: "client-number-matching" }, numberMatching, " Number matching on the hosted sign-in page"),
    el("label", { for: "client-offer-passkeys" }, offerPasskeys, " Offer to add a passkey after a phone-approved sign-in"),
    el("label", { for: "client-logout-redirects" }, "After sign-out, back to (post-logout redirect URIs, one a line)"), logoutRedirects,
    el("label", { for: "client-backchannel" }, "Back-channel logout URI (a signed logout token is POSTed here when a session ends)"), backchannel,
    el("label", { for: "client-display-name" }, "Name on the sign-in page (empty: the client's name)"), displayName,
    el("label", { for: "client-accent" }, "Accent colour of the sign-in page (#rrggbb, at least 4.5:1 against white; empty: Tessera blue)"), accent,
    el("div", { class: "actions" }, el("button", { type: "button", onclick: saveRedirects }, "Save")), redirectOut,
    el("label", { for: "client-logo" }, "Logo on the sign-in page (PNG, JPEG or WebP, at most 64 KiB; save the settings above first)"), logoPreview, logoFile,
    el("div", { class: "actions" }, el("button", { type: "button", onclick: uploadLogo }, "Upload logo"),
      el("button", { type: "button", onclick: removeLogo }, "Remove logo")), logoOut,
    el("h2", {}, "Backchannel sign-in (OpenID CIBA)"),
    el("label", { for: "client-ciba-mode" }, "How the client learns the outcome: poll the token endpoint, a ping to its notification endpoint, or the tokens pushed there"), cibaMode,
    el("label", { for: "client-ciba-endpoint" }, "Notification endpoint (for ping and push: https, or plain http to a loopback host)"), cibaEndpoint,
    el("label", { for: "client-ciba-user-code" }, cibaUserCode, " Each request must carry the user's user_code (their Tessera password)"),
    el("div", { class: "actions" }, el("button", { type: "button", id: "client-ciba-save", onclick: saveCIBA }, "Save CIBA settings")), cibaOut,
    el("h2", {}, "Push"), pushView,
    el("p", { class: "muted" }, "Replace the settings (private keys are never shown again):"), pushEdit,
    el("div", { class: "actions" }, el("button", { type: "button", onclick: savePush }, "Save push settings")), pushOut);

  const current = await attempt(policyOut, () => admin("GET", base + "/policy"));
  if (current) policy.value = JSON.stringify(current, null, 2);
  const oidc = await attempt(redirectOut, () => admin("GET", base + "/oidc"));
  if (oidc) {
    redirects.value = (oidc.redirectUris || []).join("\n"); numberMatching.checked = !!oidc.numberMatching;
    offerPasskeys.checked = !!oidc.offerPasskeys;
    logoutRedirects.value = (oidc.postLogoutRedirectUris || []).join("\n"); backchannel.value = oidc.backchannelLogoutUri || "";
    displayName.value = oidc.displayName || ""; accent.value = oidc.accentColor || "";
    // Only a logo that is set is loaded (a missing one would be a 404 in the browser's console).
    if (oidc.hasLogo) showLogo();
  }
  const ciba = await attempt(cibaOut, () => admin("GET", base + "/ciba"));
  if (ciba) { cibaMode.value = ciba.deliveryMode; cibaEndpoint.value = ciba.notificationEndpoint || ""; cibaUserCode.checked = !!ciba.userCodeRequired; cibaMode.dataset.loaded = "1"; }
  const push = await attempt(pushOut, () => admin("GET", base + "/push"));
  if (push) pushView.textContent = push.provider ? JSON.stringify(push, null, 2) : "No push settings: devices poll.";

  async function savePolicy() {
    let body;
    try { body = JSON.parse(policy.value); } catch (error) { policyOut.replaceChildren(el("div", { class: "problem" }, "The policy is not valid JSON: " + error.message)); return; }
    const saved = await attempt(policyOut, () => admin("PUT", base + "/policy", body));
    if (saved) { policy.value = JSON.stringify(saved, null, 2); policyOut.append(el("div", { class: "notice" }, "Policy saved.")); }
  }
  async function saveRedirects() {
    const lines = (text) => text.split("\n").map((s) => s.trim()).filter(Boolean);
    // The settings this form does not show (the ID token algorithm) are kept as loaded.
    const body = Object.assign({}, oidc || {}, {
      hasLogo: undefined,
      redirectUris: lines(redirects.value), numberMatching: numberMatching.checked, offerPasskeys: offerPasskeys.checked, postLogoutRedirectUris: lines(logoutRedirects.value),
    });
    if (backchannel.value.trim()) body.backchannelLogoutUri = backchannel.value.trim(); else delete body.backchannelLogoutUri;
    if (displayName.value.trim()) body.displayName = displayName.value.trim(); else delete body.displayName;
    if (accent.value.trim()) body.accentColor = accent.value.trim(); else delete body.accentColor;
    if (await attempt(redirectOut, () => admin("PUT", base + "/oidc", body))) redirectOut.append(el("div", { class: "notice" }, "Saved."));
  }
  // The logo as the sign-in page loads it (public, by client key); hidden while there is none.
  function showLogo() {
    logoPreview.onerror = () => { logoPreview.hidden = true; };
    logoPreview.onload = () => { logoPreview.hidden = false; };
    logoPreview.src = "/oauth2/logo/" + q(clientKey) + "?t=" + Date.now();
  }
  async function uploadLogo() {
    const file = logoFile.files && logoFile.files[0];
    if (!file) { logoOut.replaceChildren(el("div", { class: "problem" }, "Choose an image file first.")); return; }
    if (await attempt(logoOut, async () => { await admin("PUT", base + "/oidc/logo", file); return true; })) { logoOut.append(el("div", { class: "notice" }, "Logo saved.")); showLogo(); }
  }
  async function removeLogo() {
    if (await attempt(logoOut, async () => { await admin("DELETE", base + "/oidc/logo"); return true; })) { logoOut.append(el("div", { class: "notice" }, "Logo removed.")); logoPreview.hidden = true; logoPreview.removeAttribute("src"); }
  }
  async function saveCIBA() {
    const body = { deliveryMode: cibaMode.value, userCodeRequired: cibaUserCode.checked };
    if (cibaEndpoint.value.trim()) body.notificationEndpoint = cibaEndpoint.value.trim();
    if (await attempt(cibaOut, () => admin("PUT", base + "/ciba", body))) cibaOut.append(el("div", { class: "notice", id: "client-ciba-saved" }, "CIBA settings saved."));
  }
  async function savePush() {
    let body;
    try { body = JSON.parse(pushEdit.value); } catch (error) { pushOut.replaceChildren(el("div", { class: "problem" }, "Not valid JSON: " + error.message)); return; }
    const saved = await attempt(pushOut, () => admin("PUT", base + "/push", body));
    if (saved) { pushEdit.value = ""; pushView.textContent = saved.provider ? JSON.stringify(saved, null, 2) : "No push settings: devices poll."; pushOut.append(el("div", { class: "notice" }, "Saved.")); }
  }
}