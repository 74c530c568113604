"""Drives the built todo-showcase server with headless Chromium (Debian's chromium + chromium-driver).

Run from Examples/TodoShowcase after `swift build`:  python3 -m pytest Tests/Browser
Environment:
  TODO_SHOWCASE_BIN         the server binary (default: .build/debug/todo-showcase)
  TODO_SHOWCASE_SCREENSHOT  where to save the screenshot (default: .build/browser/showcase.png)
"""

import os
import pathlib
import queue
import re
import subprocess
import threading
import json
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

PACKAGE = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("TODO_SHOWCASE_BIN", PACKAGE / ".build" / "debug" / "todo-showcase"))
SCREENSHOT = pathlib.Path(os.environ.get("TODO_SHOWCASE_SCREENSHOT", PACKAGE / ".build" / "browser" / "showcase.png"))


class Server:
    """The real server binary on a free loopback port (it binds port 0 and prints the port it got)."""

    def __init__(self, data_dir):
        self.process = subprocess.Popen(
            [str(BINARY), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output = []
        lines = queue.Queue()

        def pump():
            for line in self.process.stdout:
                self.output.append(line)
                lines.put(line)

        threading.Thread(target=pump, daemon=True).start()
        self.url = None
        while self.url is None:
            try:
                line = lines.get(timeout=60)
            except queue.Empty:
                self.stop()
                raise RuntimeError("the server did not start:\n" + "".join(self.output))
            match = re.search(r"Listening on (http://127\.0\.0\.1:\d+)", line)
            if match:
                self.url = match.group(1)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,720"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path / "data")
    yield running
    running.stop()


def wait(driver):
    # A form post reloads the page, so an element found a moment ago can go stale: look again.
    return WebDriverWait(driver, 15, ignored_exceptions=[StaleElementReferenceException])


def add_item(driver, style, title):
    field = wait(driver).until(EC.element_to_be_clickable((By.ID, f"title-{style}")))
    field.clear()
    field.send_keys(title)
    driver.find_element(By.CSS_SELECTOR, f"#list-{style} form.add button[type=submit]").click()
    wait(driver).until(EC.presence_of_element_located((By.XPATH, f"//section[@id='list-{style}']//span[@class='title'][.={xpath_literal(title)}]")))


def titles(driver, style):
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, f"#list-{style} li.item .title")]


def open_tab(driver, style):
    driver.find_element(By.ID, f"tab-{style}").click()
    wait(driver).until(EC.presence_of_element_located((By.ID, f"list-{style}")))


def xpath_literal(text):
    if "'" not in text:
        return f"'{text}'"
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"


def test_item_added_in_manual_tab_shows_in_swinject_tab(browser, server):
    assert any(line.startswith("Data directory: ") and line.rstrip().endswith("(created)") for line in server.output)
    browser.get(server.url + "/")
    open_tab(browser, "manual")
    add_item(browser, "manual", "Buy oat milk")
    add_item(browser, "manual", "Ship the Knapsack README")
    add_item(browser, "manual", "<script>alert('x')</script> stays text")

    open_tab(browser, "swinject")

    assert titles(browser, "swinject") == ["Buy oat milk", "Ship the Knapsack README", "<script>alert('x')</script> stays text"]
    assert browser.find_element(By.ID, "tab-swinject").get_attribute("aria-current") == "page"

    # Complete one item from the Swinject tab, and see it completed in the Knapsack tab.
    browser.find_element(By.CSS_SELECTOR, "#list-swinject li.item:nth-child(2) button.toggle").click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-swinject li.item.done")))
    open_tab(browser, "knapsack")
    done = browser.find_elements(By.CSS_SELECTOR, "#list-knapsack li.item.done .title")
    assert [element.text for element in done] == ["Ship the Knapsack README"]

    open_tab(browser, "swinject")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000


def test_delete_in_provider_page_and_data_survives_restart(browser, tmp_path):
    data_dir = tmp_path / "restart"
    first = Server(data_dir)
    try:
        browser.get(first.url + "/styles/provider")
        add_item(browser, "provider", "Keep me")
        add_item(browser, "provider", "Delete me")
        browser.find_element(By.CSS_SELECTOR, "#list-provider li.item:nth-child(2) button.delete").click()
        wait(browser).until(lambda driver: titles(driver, "provider") == ["Keep me"])
    finally:
        first.stop()

    second = Server(data_dir)
    try:
        browser.get(second.url + "/?tab=knapsack")
        assert titles(browser, "knapsack") == ["Keep me"]
    finally:
        second.stop()


def test_graph_page_draws_the_container(browser, server):
    browser.get(server.url + "/")
    browser.find_element(By.LINK_TEXT, "Dependency graph").click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "svg.graph")))

    names = [node.get_attribute("data-name") for node in browser.find_elements(By.CSS_SELECTOR, "#graph svg.graph g.node")]
    assert names == ["\\.todoClock", "\\.todoListScreen", "\\.todoListViewModel", "\\.todoStorage"]
    assert browser.find_element(By.CSS_SELECTOR, "#validation .valid").text == "✓ Valid"
    assert "no problems" in browser.find_element(By.ID, "validation-report").text

    # The legend, the graph broken on purpose, and the other styles' registrations.
    legend = browser.find_element(By.ID, "legend").text
    for term in ("A → B", "singleton", "unique", "Key<T>", "Not provided"):
        assert term in legend
    broken = browser.find_element(By.ID, "broken-report").text
    assert "requiredKeyNotProvided" in broken and "todoStorage" in broken
    missing = browser.find_elements(By.CSS_SELECTOR, "#broken svg.graph g.node.missing")
    assert [node.get_attribute("data-name") for node in missing] == ["\\.todoStorage"]
    broken_names = [node.get_attribute("data-name") for node in browser.find_elements(By.CSS_SELECTOR, "#broken svg.graph g.node")]
    assert broken_names == names
    swinject = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#swinject-registrations li")]
    assert len(swinject) == 4 and any(line.startswith("Service: TodoListScreen") for line in swinject)
    assert browser.find_elements(By.CSS_SELECTOR, "#provider-registrations li")

    desktop_screenshot(browser, "graph.png")


def screenshot(driver, name):
    """A screenshot of the viewport as it is, beside the others."""
    path = SCREENSHOT.with_name(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(path))
    return path


def desktop_screenshot(driver, name):
    """A 1280-pixel-wide screenshot of the whole page."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(max(height + 140, 720), 6000))
    assert screenshot(driver, name).stat().st_size > 10_000


def test_each_tab_shows_its_wiring_and_trade_offs(browser, server):
    browser.get(server.url + "/")
    assert "All four tabs read and write the same" in browser.find_element(By.ID, "shared-banner").text
    captions = {}
    for style in ("manual", "provider", "knapsack", "swinject"):
        open_tab(browser, style)
        lesson = browser.find_element(By.ID, f"lesson-{style}")
        assert [term.text for term in lesson.find_elements(By.CSS_SELECTOR, "dl.tradeoffs dt")] == ["Gives", "Costs", "Pick it when"]
        figures = lesson.find_elements(By.CSS_SELECTOR, "figure.wiring")
        assert figures, style
        for figure in figures:
            assert figure.find_element(By.CSS_SELECTOR, "pre code").text.strip()
        captions[style] = [figure.find_element(By.TAG_NAME, "figcaption").text for figure in figures]
    assert len({tuple(value) for value in captions.values()}) == 4

    open_tab(browser, "provider")
    code = " ".join(element.text for element in browser.find_elements(By.CSS_SELECTOR, "#lesson-provider pre code"))
    assert "extension Container: DependencyProvider {}" in code
    open_tab(browser, "knapsack")
    add_item(browser, "knapsack", "Read the wiring")
    desktop_screenshot(browser, "tab-knapsack.png")


def test_item_added_in_one_window_appears_in_another_without_reload(browser, server):
    browser.get(server.url + "/?tab=knapsack")
    watcher = browser.current_window_handle
    # A mark that a reload would wipe.
    browser.execute_script("window.__notReloaded = true")
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-knapsack .empty")))

    browser.switch_to.new_window("window")
    browser.get(server.url + "/?tab=manual")
    add_item(browser, "manual", "Seen <live> in the other window")

    browser.switch_to.window(watcher)
    WebDriverWait(browser, 20).until(lambda driver: titles(driver, "knapsack") == ["Seen <live> in the other window"])
    assert browser.execute_script("return window.__notReloaded === true")
    # The live list still works: complete the item from the watching window.
    browser.find_element(By.CSS_SELECTOR, "#list-knapsack li.item button.toggle").click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-knapsack li.item.done")))


def test_typing_survives_a_live_update(browser, server):
    browser.get(server.url + "/?tab=swinject")
    field = wait(browser).until(EC.element_to_be_clickable((By.ID, "title-swinject")))
    field.send_keys("half-typed")
    request = urllib.request.Request(
        server.url + "/api/todos", data=b'{"title": "From the API"}', headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201
    WebDriverWait(browser, 20).until(lambda driver: titles(driver, "swinject") == ["From the API"])
    field = browser.find_element(By.ID, "title-swinject")
    assert field.get_attribute("value") == "half-typed"
    assert browser.switch_to.active_element == field


def test_empty_title_shows_an_error(browser, server):
    browser.get(server.url + "/?tab=manual")
    browser.find_element(By.ID, "title-manual").send_keys("   ")
    browser.find_element(By.CSS_SELECTOR, "#list-manual form.add button[type=submit]").click()
    error = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-manual .error")))
    assert error.text == "The title must not be empty."
    assert titles(browser, "manual") == []


def test_a_refused_title_keeps_the_focus_and_names_its_message(browser, server):
    browser.get(server.url + "/?tab=manual")
    browser.find_element(By.ID, "title-manual").send_keys("   " + Keys.ENTER)
    error = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-manual .error")))
    field = browser.find_element(By.ID, "title-manual")
    # Back in the field to correct it, which says it is invalid and why.
    assert browser.switch_to.active_element == field
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby") == error.get_attribute("id")


def test_a_title_too_long_is_refused_whole_not_cut_by_the_field(browser, server):
    browser.get(server.url + "/?tab=knapsack")
    field = wait(browser).until(EC.element_to_be_clickable((By.ID, "title-knapsack")))
    field.send_keys("a" * 250)
    # The field takes all of it: the server, which counts characters, tells what is wrong.
    assert len(field.get_attribute("value")) == 250
    field.send_keys(Keys.ENTER)
    error = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-knapsack .error")))
    assert "at most 200" in error.text
    assert browser.find_element(By.ID, "title-knapsack").get_attribute("value") == "a" * 250
    assert titles(browser, "knapsack") == []
    # 200 emoji are 200 characters (400 UTF-16 units): accepted whole, the last one intact.
    family = "\U0001F468\u200D\U0001F469\u200D\U0001F467"
    field = browser.find_element(By.ID, "title-knapsack")
    browser.execute_script("arguments[0].value = arguments[1];", field, "Party " + family * 25)
    browser.find_element(By.ID, "add-knapsack").click()
    wait(browser).until(lambda driver: len(titles(driver, "knapsack")) == 1)
    with urllib.request.urlopen(server.url + "/api/todos", timeout=10) as response:
        stored = json.load(response)
    items = stored["items"] if isinstance(stored, dict) else stored
    assert [item["title"] for item in items] == ["Party " + family * 25]


def test_deleting_the_last_item_of_the_last_page_does_not_say_the_list_is_empty(browser, server):
    for number in range(51):
        add_through_api(server, f"Item {number:02}")
    browser.get(server.url + "/?tab=provider")
    wait(browser).until(EC.element_to_be_clickable((By.ID, "next-provider"))).click()
    wait(browser).until(lambda driver: titles(driver, "provider") == ["Item 50"])
    browser.find_element(By.CSS_SELECTOR, "#list-provider li.item button.delete").click()
    empty = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-provider .empty")))
    assert empty.text == "No items on this page any more."
    assert browser.find_element(By.ID, "first-provider").is_displayed()
    assert "50 items" in browser.find_element(By.CSS_SELECTOR, "#list-provider footer").text


def console_errors(driver):
    """The browser's console errors since the last call (a failed fetch logs one)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def test_first_load_logs_no_console_error(browser, server):
    # A missing /favicon.ico used to log a 404 on every first load.
    for path in ("/", "/graph"):
        browser.get(server.url + path)
        wait(browser).until(EC.presence_of_element_located((By.TAG_NAME, "main")))
        WebDriverWait(browser, 10).until(lambda driver: driver.execute_script("return document.readyState") == "complete")
        assert console_errors(browser) == [], path
    with urllib.request.urlopen(server.url + "/favicon.ico", timeout=10) as response:
        assert response.status == 200 and response.headers["Content-Type"] == "image/svg+xml"


def test_live_updates_go_on_after_a_refused_change(browser, server):
    browser.get(server.url + "/?tab=knapsack")
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-knapsack .empty")))
    console_errors(browser)
    browser.find_element(By.ID, "title-knapsack").send_keys("   ")
    browser.find_element(By.CSS_SELECTOR, "#list-knapsack form.add button[type=submit]").click()
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-knapsack .error")))
    # The refused page is answered at the form's address; it shows (and polls) the list's.
    assert browser.current_url == server.url + "/?tab=knapsack"
    assert browser.find_element(By.ID, "title-knapsack").get_attribute("value") == "   "
    served = len(server.output)
    console_errors(browser)  # The 422 of the refused page itself.

    add_through_api(server, "Added after the refusal")
    WebDriverWait(browser, 20).until(lambda driver: titles(driver, "knapsack") == ["Added after the refusal"])
    # The message stays with the list, and what was typed stays in the field.
    assert browser.find_element(By.CSS_SELECTOR, "#list-knapsack .error").text == "The title must not be empty."
    assert browser.find_element(By.ID, "title-knapsack").get_attribute("value") == "   "
    # A few more polls of the list's page (access-log lines), and no request refused with 405.
    def polls():
        return [line for line in server.output[served:] if "http.method=GET" in line and "http.path=/ " in line]

    WebDriverWait(browser, 20).until(lambda driver: len(polls()) >= 3)
    assert all("http.status=200" in line for line in polls()), polls()
    assert not [line for line in server.output[served:] if "http.status=405" in line], server.output[served:]
    assert console_errors(browser) == []

    # Deleting a stale item (one no longer stored) is a 404 page; the live list goes on from there too.
    browser.execute_script(
        "var form = document.querySelector('#list-knapsack li.item form[action$=delete]');"
        "form.action = form.action.replace(/todos\\/[^/]+\\/delete/, 'todos/00000000-0000-0000-0000-000000000000/delete');"
        "form.submit();"
    )
    wait(browser).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#list-knapsack .error"), "No to-do item"))
    assert browser.current_url == server.url + "/?tab=knapsack"
    console_errors(browser)  # The 404 of the refused page itself.
    add_through_api(server, "Seen after the 404")
    WebDriverWait(browser, 20).until(
        lambda driver: titles(driver, "knapsack") == ["Added after the refusal", "Seen after the 404"])
    assert "No to-do item" in browser.find_element(By.CSS_SELECTOR, "#list-knapsack .error").text
    assert console_errors(browser) == []


def test_command_line_shares_the_servers_storage(tmp_path):
    data_dir = tmp_path / "cli"

    def run(*arguments):
        result = subprocess.run([str(BINARY), *arguments, "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    run("add", "From the command line")
    assert data_dir.is_dir()
    added = run("add", "Second")
    short_id = re.search(r"Added ([0-9A-F]{8})", added).group(1)
    run("done", short_id)
    listing = run("list")
    assert "[ ] " in listing and "From the command line" in listing
    assert f"[x] {short_id}  Second" in listing

    server = Server(data_dir)
    try:
        with urllib.request.urlopen(server.url + "/api/todos", timeout=10) as response:
            body = response.read().decode()
        assert "From the command line" in body and "Second" in body
    finally:
        server.stop()

    run("remove", short_id)
    assert "Second" not in run("list")


STYLES = ["manual", "provider", "knapsack", "swinject"]


def add_through_api(server, title):
    request = urllib.request.Request(
        server.url + "/api/todos",
        data=json.dumps({"title": title}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201


def test_phone_width_never_scrolls_sideways(browser, server):
    # More than one page of items, one of them a long unbroken word, so the pager shows too.
    add_through_api(server, "A" * 120)
    for number in range(1, 56):
        add_through_api(server, f"Phone item {number}")
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}
    )
    pages = {f"tab-{style}": f"/?tab={style}" for style in STYLES}
    pages["styles-manual"] = "/styles/manual"
    pages["graph"] = "/graph"
    for name, path in pages.items():
        browser.get(server.url + path)
        wait(browser).until(EC.presence_of_element_located((By.TAG_NAME, "main")))
        inner = browser.execute_script("return window.innerWidth")
        scroll = browser.execute_script("return document.documentElement.scrollWidth")
        assert inner == 390, name
        assert scroll <= inner, f"{path} is {scroll} px wide at a {inner} px viewport"
        screenshot(browser, f"phone-{name}.png")

    # The graph keeps its natural size, so its labels stay readable, and scrolls sideways inside its frame.
    browser.get(server.url + "/graph")
    frame = browser.find_element(By.CSS_SELECTOR, "#graph .graph-frame")
    scale = browser.execute_script(
        "const svg = arguments[0].querySelector('svg.graph');"
        "return svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;", frame)
    assert scale == 1, f"the graph is drawn at {scale:.0%} of its size"
    assert browser.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", frame)
    browser.execute_script("arguments[0].scrollLeft = 10000", frame)
    assert browser.execute_script("return arguments[0].scrollLeft", frame) > 0
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    label = browser.find_element(By.CSS_SELECTOR, "#graph svg.graph g.node text")
    assert browser.execute_script("return arguments[0].getBoundingClientRect().height", label) >= 10

    # The second page of a tab, reached through its Next page link, fits too.
    browser.get(server.url + "/?tab=knapsack")
    assert len(titles(browser, "knapsack")) == 50
    browser.find_element(By.CSS_SELECTOR, "#list-knapsack nav.pager a.next").click()
    wait(browser).until(lambda driver: "after=" in driver.current_url)
    assert titles(browser, "knapsack") == [f"Phone item {number}" for number in range(50, 56)]
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert browser.find_element(By.CSS_SELECTOR, "#list-knapsack footer").text == "56 items, 0 done"


LINES_OF = """
const walker = document.createTreeWalker(arguments[0], NodeFilter.SHOW_TEXT);
let text = "", top = null;
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  for (let i = 0; i < node.length; i++) {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const y = Math.round(range.getBoundingClientRect().top);
    if (top !== null && y > top + 2) text += "|";
    top = y;
    text += node.data[i];
  }
}
return text;
"""


def test_phone_tabs_are_a_grid_whose_labels_break_between_words(browser, server):
    # At the narrowest common phone width the four tabs are two rows of two equal buttons, and
    # "DependencyProvider" breaks after "Dependency", never inside a word.
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 320, "height": 640, "deviceScaleFactor": 1, "mobile": True}
    )
    browser.get(server.url + "/?tab=provider")
    tabs = browser.find_elements(By.CSS_SELECTOR, "nav.tabs a")
    boxes = [browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width];", tab) for tab in tabs]
    # Each label as drawn, with "|" where a line ends.
    lines = [browser.execute_script(LINES_OF, tab) for tab in tabs]
    assert lines == ["Manual DI", "Dependency|Provider", "Knapsack", "Swinject"], lines
    assert boxes[0][1] == boxes[1][1] and boxes[2][1] == boxes[3][1] and boxes[2][1] > boxes[0][1]
    assert boxes[0][0] == boxes[2][0] and boxes[1][0] == boxes[3][0] and boxes[1][0] > boxes[0][0]
    assert len({round(box[2]) for box in boxes}) == 1, boxes
    for tab in tabs:
        assert browser.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth", tab), tab.text
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(browser, "phone-320-tabs.png")


def tab_to(driver, matches, limit=60):
    """Presses Tab until the focused element satisfies `matches`; returns that element."""
    for _ in range(limit):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        element = driver.switch_to.active_element
        if matches(element):
            return element
    raise AssertionError("Tab never reached the element")


def assert_focus_visible(driver, element):
    style = driver.execute_script(
        "const s = getComputedStyle(arguments[0]); return [s.outlineStyle, parseFloat(s.outlineWidth)];", element
    )
    assert style[0] != "none" and style[1] >= 2, f"no visible focus ring: {style}"


def test_keyboard_alone_adds_toggles_and_deletes(browser, server):
    browser.get(server.url + "/?tab=manual")
    field = tab_to(browser, lambda element: element.get_attribute("id") == "title-manual")
    assert_focus_visible(browser, field)
    field.send_keys("Typed without a mouse")
    field.send_keys(Keys.ENTER)
    wait(browser).until(lambda driver: titles(driver, "manual") == ["Typed without a mouse"])

    # Back from the add, the field has the focus again, for the next item.
    wait(browser).until(lambda driver: driver.switch_to.active_element.get_attribute("id") == "title-manual")

    toggle = tab_to(browser, lambda element: "toggle" in (element.get_attribute("class") or ""))
    assert_focus_visible(browser, toggle)
    assert toggle.get_attribute("aria-label") == "Mark as done: Typed without a mouse"
    toggle.send_keys(Keys.SPACE)
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-manual li.item.done")))
    # The item's toggle keeps the focus across the page the change went back to.
    wait(browser).until(lambda driver: "toggle" in (driver.switch_to.active_element.get_attribute("class") or ""))
    assert browser.switch_to.active_element.get_attribute("aria-label") == "Mark as not done: Typed without a mouse"

    delete = tab_to(browser, lambda element: "delete" in (element.get_attribute("class") or ""))
    assert_focus_visible(browser, delete)
    delete.send_keys(Keys.ENTER)
    wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#list-manual .empty")))
    assert titles(browser, "manual") == []
    # No item followed it: the add field has the focus.
    wait(browser).until(lambda driver: driver.switch_to.active_element.get_attribute("id") == "title-manual")


def test_a_change_far_down_the_list_keeps_the_place_and_the_focus(browser, server):
    for number in range(20):
        add_through_api(server, f"Far item {number:02d}")
    browser.get(server.url + "/?tab=swinject")
    wait(browser).until(lambda driver: len(titles(driver, "swinject")) == 20)
    items = browser.find_elements(By.CSS_SELECTOR, "#list-swinject li.item")
    sixteenth, seventeenth = items[15].get_attribute("data-id"), items[16].get_attribute("data-id")
    button = browser.find_element(By.CSS_SELECTOR, f'#list-swinject li[data-id="{sixteenth}"] button.toggle')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus();", button)
    button.send_keys(Keys.ENTER)
    wait(browser).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, f'#list-swinject li.item.done[data-id="{sixteenth}"]'))
    )
    # Back on the page at the item changed, not at the top, with its toggle focused.
    wait(browser).until(
        lambda driver: driver.switch_to.active_element.find_element(By.XPATH, "./ancestor::li").get_attribute("data-id")
        == sixteenth
    )
    assert browser.execute_script("return window.scrollY") > 0

    # Deleting it lands on the item that followed it.
    delete = browser.find_element(By.CSS_SELECTOR, f'#list-swinject li[data-id="{sixteenth}"] button.delete')
    browser.execute_script("arguments[0].focus();", delete)
    delete.send_keys(Keys.ENTER)
    wait(browser).until(lambda driver: len(titles(driver, "swinject")) == 19)
    wait(browser).until(
        lambda driver: driver.switch_to.active_element.find_element(By.XPATH, "./ancestor::li").get_attribute("data-id")
        == seventeenth
    )
    assert browser.execute_script("return window.scrollY") > 0


def test_the_add_button_keeps_the_focus_across_a_live_update(browser, server):
    browser.get(server.url + "/?tab=provider")
    add = browser.find_element(By.ID, "add-provider")
    browser.execute_script("arguments[0].focus();", add)
    add_through_api(server, "Added while Add had the focus")
    WebDriverWait(browser, 20).until(lambda driver: titles(driver, "provider") == ["Added while Add had the focus"])
    assert browser.switch_to.active_element.get_attribute("id") == "add-provider"
