extension ConsoleAssets {
    /// `index.html`: The console page (`GET /admin`): the sign-in form and the shell the modules fill; no inline script or style.
    static let page = Asset(html: #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tessera admin</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/admin/console.css">
<script type="module" src="/admin/app.js"></script>
</head>
<body>
<div id="signin" class="signin" hidden>
  <form id="signin-form" class="card signin-card" autocomplete="off">
    <h1>Tessera admin</h1>
    <p class="muted">Sign in with the admin token (printed at first start, or <code>tessera admin token reset</code>).</p>
    <label for="token">Admin token</label>
    <input id="token" name="token" type="password" required maxlength="500" autocomplete="off" spellcheck="false">
    <button id="signin-submit" type="submit">Sign in</button>
    <div id="signin-error" class="problem" hidden></div>
  </form>
</div>
<div id="shell" class="shell" hidden>
  <header class="topbar">
    <button id="menu" class="menu" type="button" aria-controls="nav" aria-expanded="false">Menu</button>
    <span class="brand">Tessera admin</span>
    <button id="signout" class="quiet" type="button">Sign out</button>
  </header>
  <nav id="nav" class="nav" aria-label="Console pages"></nav>
  <main id="view" class="view" tabindex="-1"></main>
</div>
<noscript><p class="card">The console needs JavaScript.</p></noscript>
</body>
</html>
"""#)
}
