"""The admin console in headless Debian Chromium (Selenium): sign in with the admin token, create a client
(its secret shown once), revoke a device and see it revoked, rotate the signing key, verify the audit log, and
watch a login appear live; at 1280 and 390 px wide, with screenshots and no SEVERE entry in the browser's log.

Usage: console_browser.py BASE_URL ADMIN_TOKEN CLIENT_KEY DEVICE_ID SHOTS_DIR READY_FILE
The script writes READY_FILE (whole, then renamed) once the live view is connected: the Swift test then drives a
login, which must appear in the live view. Prints one JSON object on the last line of stdout.
"""
import json
import os
import sys

os.environ["SE_AVOID_STATS"] = "true"  # Selenium Manager must not reach the internet.

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

# Bounds against a hung run only (a busy machine may be slow); every wait is on a condition.
TIMEOUT = 300
# A page re-renders its list after a change: an element found a moment ago may be gone; look again.
IGNORED = (NoSuchElementException, StaleElementReferenceException)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1", "--window-size=1280,800"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def screenshot(driver, shots, name):
    path = os.path.join(shots, name + ".png")
    assert driver.save_screenshot(path), "screenshot failed"
    return path


def css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def page_ready(driver, page):
    """The page `page` is shown and has finished loading (no request in flight leaves it empty)."""
    return driver.execute_script(
        "const v = document.getElementById('view'); return v.dataset.page === arguments[0] && v.children.length > 0;", page)


def go(driver, wait, hash_, page, ready_selector):
    driver.execute_script("location.hash = arguments[0];", hash_)
    wait.until(lambda d: page_ready(d, page) and css(d, ready_selector))


def click_twice(driver, element):
    """A danger button arms on the first click and acts on the second (the console has no confirm())."""
    element.click()
    WebDriverWait(driver, TIMEOUT, ignored_exceptions=IGNORED).until(lambda d: "armed" in element.get_attribute("class"))
    element.click()


def main():
    base, token, client_key, device_id, shots, ready_file, passkey_user, passkey_id = sys.argv[1:9]
    os.makedirs(shots, exist_ok=True)
    result = {"screenshots": []}
    driver = browser()
    try:
        wait = WebDriverWait(driver, TIMEOUT, ignored_exceptions=IGNORED)
        driver.get(base + "/admin")
        wait.until(lambda d: d.find_element(By.ID, "signin").is_displayed())
        result["url_before"] = driver.current_url
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "signin-submit").click()
        wait.until(lambda d: d.find_element(By.ID, "shell").is_displayed() and page_ready(d, "clients") and css(d, "#client-form"))
        # The token is in no URL and not readable from the page's cookies (HttpOnly).
        result["token_in_url"] = token in driver.current_url
        result["cookie_visible_to_script"] = "tessera_console" in driver.execute_script("return document.cookie")

        # Create a client: its secret is shown once, the list has it.
        driver.find_element(By.ID, "client-name").send_keys("Console test app")
        driver.find_element(By.ID, "client-bundles").send_keys("com.example.console, com.example.console.dev")
        driver.find_element(By.ID, "client-create").click()
        wait.until(lambda d: css(d, "#new-secret") and any("Console test app" in row.text for row in css(d, "tr[data-client-key]")))
        result["client_secret_length"] = len(driver.find_element(By.ID, "new-secret").text)
        result["created_client_key"] = next(row.get_attribute("data-client-key") for row in css(driver, "tr[data-client-key]") if "Console test app" in row.text)
        result["screenshots"].append(screenshot(driver, shots, "console-clients-1280"))

        # The new client's settings: CIBA in ping mode with its notification endpoint.
        go(driver, wait, "#/clients?client=" + result["created_client_key"], "clients", "#client-ciba-mode[data-loaded]")
        Select(driver.find_element(By.ID, "client-ciba-mode")).select_by_value("ping")
        driver.find_element(By.ID, "client-ciba-endpoint").send_keys("https://console.example.com/ciba")
        driver.find_element(By.ID, "client-ciba-save").click()
        wait.until(lambda d: css(d, "#client-ciba-saved"))
        result["ciba_saved"] = driver.find_element(By.ID, "client-ciba-saved").text

        # Revoke the device and see it revoked.
        device = f'[data-device-id="{device_id}"]'
        go(driver, wait, "#/users?client=" + client_key, "users", device + " button.revoke")
        result["device_attest"] = driver.find_element(By.CSS_SELECTOR, device + " .device-attest").text
        click_twice(driver, driver.find_element(By.CSS_SELECTOR, device + " button.revoke"))
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, device + " .device-status").text == "revoked")
        result["device_status"] = driver.find_element(By.CSS_SELECTOR, device + " .device-status").text
        result["device_revoke_buttons"] = len(css(driver, device + " button.revoke"))
        result["screenshots"].append(screenshot(driver, shots, "console-users-1280"))

        # A user's passkeys, shown when asked for; revoke one and see none left.
        user_row = f'[data-user-key="{passkey_user}"]'
        passkey = f'[data-passkey-id="{passkey_id}"]'
        driver.find_element(By.CSS_SELECTOR, user_row + " button.show-passkeys").click()
        wait.until(lambda d: css(d, passkey + " button.revoke-passkey"))
        result["passkey_text"] = driver.find_element(By.CSS_SELECTOR, passkey).text
        click_twice(driver, driver.find_element(By.CSS_SELECTOR, passkey + " button.revoke-passkey"))
        wait.until(lambda d: css(d, user_row + " .passkeys-none"))
        result["passkeys_after_revoke"] = len(css(driver, user_row + " [data-passkey-id]"))

        # Rotate the signing key: the new key signs and is listed first.
        go(driver, wait, "#/keys", "keys", "#keys-list li[data-kid]")
        result["kids_before"] = [li.get_attribute("data-kid") for li in css(driver, "#keys-list li[data-kid]")]
        click_twice(driver, driver.find_element(By.ID, "keys-rotate"))
        wait.until(lambda d: css(d, "#rotated-kid") and css(d, "#keys-list li[data-kid]")[0].get_attribute("data-kid") == d.find_element(By.ID, "rotated-kid").text)
        result["rotated_kid"] = driver.find_element(By.ID, "rotated-kid").text
        result["kids_after"] = [li.get_attribute("data-kid") for li in css(driver, "#keys-list li[data-kid]")]

        # Webhooks: add an endpoint (its secret shown once), send a test event, see it in the delivery history.
        go(driver, wait, "#/webhooks?client=" + client_key, "webhooks", "#webhook-form")
        driver.find_element(By.ID, "webhook-url").send_keys("http://127.0.0.1:9/hooks")
        driver.find_element(By.ID, "webhook-create").click()
        wait.until(lambda d: css(d, "#new-secret") and css(d, "tr[data-endpoint-id]"))
        result["webhook_secret_prefix"] = driver.find_element(By.ID, "new-secret").text[:6]
        endpoint = css(driver, "tr[data-endpoint-id]")[0]
        next(b for b in endpoint.find_elements(By.TAG_NAME, "button") if b.text == "Send test").click()
        wait.until(lambda d: any("webhook.test" in row.text for row in css(d, "tr[data-delivery-id]")))
        result["webhook_history"] = [row.text.split("\n")[0] for row in css(driver, "tr[data-delivery-id]")]
        result["screenshots"].append(screenshot(driver, shots, "console-webhooks-1280"))

        # The audit log verifies, and the console's changes are in it.
        go(driver, wait, "#/audit", "audit", "#audit-verify")
        driver.find_element(By.ID, "audit-verify").click()
        wait.until(lambda d: css(d, "#audit-verify-result [data-ok]"))
        result["audit_ok"] = driver.find_element(By.CSS_SELECTOR, "#audit-verify-result [data-ok]").get_attribute("data-ok")
        result["audit_types"] = [row.find_elements(By.TAG_NAME, "code")[0].text for row in css(driver, "tr[data-seq]")]
        result["screenshots"].append(screenshot(driver, shots, "console-audit-1280"))

        # The live view: once connected, the test drives a login, which appears.
        go(driver, wait, "#/live", "live", "#live-status")
        wait.until(lambda d: d.find_element(By.ID, "live-status").text == "connected")
        with open(ready_file + ".partial", "w") as marker:
            marker.write("ready")
        os.replace(ready_file + ".partial", ready_file)
        wait.until(lambda d: css(d, '#live-list li[data-type="login.completed"]'))
        result["live_types"] = [li.get_attribute("data-type") for li in css(driver, "#live-list li")]
        result["screenshots"].append(screenshot(driver, shots, "console-live-1280"))

        # 390 px wide: nothing wider than the window, the navigation behind the menu button.
        driver.set_window_size(390, 844)
        wait.until(lambda d: d.execute_script("return window.innerWidth") <= 390)
        result["nav_hidden_390"] = not driver.find_element(By.ID, "nav").is_displayed()
        result["overflow_390"] = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        result["screenshots"].append(screenshot(driver, shots, "console-live-390"))
        driver.find_element(By.ID, "menu").click()
        wait.until(lambda d: d.find_element(By.ID, "nav").is_displayed())
        result["screenshots"].append(screenshot(driver, shots, "console-menu-390"))
        driver.find_element(By.CSS_SELECTOR, '#nav a[data-page="users"]').click()
        wait.until(lambda d: page_ready(d, "users") and css(d, device + " .device-status"))
        result["overflow_390_users"] = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        result["screenshots"].append(screenshot(driver, shots, "console-users-390"))
        # Every page at 390 px: no sideways scrolling, and no button or table cell cut off by the window or its card.
        result["clipped_390"] = {}
        for hash_, page, ready in [("#/clients", "clients", "[data-client-key]"), ("#/audit", "audit", "#audit-verify"),
                                   ("#/webhooks?client=" + client_key, "webhooks", "#webhook-form"), ("#/keys", "keys", "#keys-list li[data-kid]"),
                                   ("#/users?client=" + client_key, "users", device + " .device-status")]:
            go(driver, wait, hash_, page, ready)
            result["clipped_390"][page] = driver.execute_script("""
                const width = document.documentElement.clientWidth, cut = [];
                if (document.documentElement.scrollWidth > width) cut.push("page " + document.documentElement.scrollWidth);
                for (const node of document.querySelectorAll("#view button, #view td")) {
                  const r = node.getBoundingClientRect();
                  if (r.width === 0 || getComputedStyle(node).visibility === "hidden") continue;
                  if (r.left < -0.5 || r.right > width + 0.5) cut.push(node.tagName + " " + (node.textContent || "").trim().slice(0, 30) + " " + Math.round(r.right));
                }
                return cut;""")
            result["screenshots"].append(screenshot(driver, shots, "console-%s-390" % page))

        # Sign out: the sign-in form again.
        driver.find_element(By.ID, "signout").click()
        wait.until(lambda d: d.find_element(By.ID, "signin").is_displayed())

        logs = driver.get_log("browser")
        result["severe"] = [entry["message"] for entry in logs if entry["level"] == "SEVERE"]
        result["log_entries"] = len(logs)
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
