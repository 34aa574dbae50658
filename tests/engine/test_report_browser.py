"""The HTML report opened in a real headless browser.

Chromium (the distribution's package: ``apt-get install chromium``) is driven
through the DevTools protocol over a pipe (``--remote-debugging-pipe``: JSON
messages ending in a NUL byte on file descriptors 3 and 4) by the small client
below — no Python dependency.  The page is a real report: the selftest claims
at quick budgets and one figure built through ``paper_figs.save_figure``,
registered with a caption and the claims it supports.  Checked: it renders,
every image loads (``naturalWidth > 0``), every internal link resolves to an
element, ids are unique, nothing is fetched but the page itself and ``data:``
URIs, no console message or exception at level error, and the claims table
sorts and filters.  Skipped, saying why, when no Chromium is installed.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time

import pytest

from tests.engine.report_fixture import write_selftest_report

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_browser() -> str | None:
    """A Chromium executable: ``$THEORYCHECK_CHROMIUM`` or the first of :data:`BROWSERS` on PATH."""
    env = os.environ.get("THEORYCHECK_CHROMIUM")
    if env:
        return env if shutil.which(env) else None
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class CDPError(RuntimeError):
    pass


class Browser:
    """Headless Chromium with the DevTools protocol on a pipe (fd 3 in, fd 4 out)."""

    def __init__(self, exe: str, profile_dir, *, width=1280, height=900, timeout=60.0):
        args = [exe, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile_dir}",
                f"--window-size={width},{height}", "about:blank"]
        # the shell hands our stdin/stdout to Chromium as fds 3/4, then detaches 0/1
        self.proc = subprocess.Popen(["sh", "-c", 'exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null', *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.timeout = timeout
        self.buf = b""
        self.events: list[dict] = []
        self.next_id = 0
        self.width, self.height = width, height

    # -- protocol ---------------------------------------------------------
    def _read_message(self, deadline) -> dict:
        fd = self.proc.stdout.fileno()
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from Chromium in time")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise CDPError(f"Chromium exited (status {self.proc.poll()})")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.proc.stdin.write(json.dumps(msg).encode() + b"\0")
        self.proc.stdin.flush()
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise CDPError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method: str, timeout: float | None = None) -> dict:
        deadline = time.monotonic() + (timeout or self.timeout)
        for m in self.events:
            if m.get("method") == method:
                return m
        while True:
            m = self._read_message(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return m

    def drain(self, seconds: float = 0.3) -> None:
        """Collect the events that arrive within ``seconds``."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except TimeoutError:
            pass

    # -- a page -----------------------------------------------------------
    def open(self, url: str) -> str:
        """Open ``url`` in a new tab; returns the session id once it has loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=s)
        self.send("Emulation.setDeviceMetricsOverride", {"width": self.width, "height": self.height,
                                                          "deviceScaleFactor": 1, "mobile": False}, session=s)
        self.events.clear()
        self.send("Page.navigate", {"url": url}, session=s)
        self.wait_event("Page.loadEventFired")
        return s

    def evaluate(self, session: str, expression: str):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, session=session)
        if "exceptionDetails" in r:
            raise CDPError(f"page script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for m in self.events:
            p = m.get("params", {})
            if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif m.get("method") == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails"))[:500])
            elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", ""))
        return out

    def requests(self) -> list[str]:
        return [m["params"]["request"]["url"] for m in self.events
                if m.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (CDPError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


#: Everything the page must satisfy, computed in the page.
CHECK_JS = r"""
(async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  // decode() rejects an image the browser cannot decode in full (a truncated or corrupt PNG)
  const decoded = await Promise.all(imgs.map(i => i.decode().then(() => true, () => false)));
  // a truncated PNG decodes partly: the rows it lacks stay transparent, so the last row must not be
  const bottom = imgs.map(i => {
    if (!(i.naturalWidth > 0)) return false;
    const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight;
    const g = c.getContext('2d'); g.drawImage(i, 0, 0);
    const row = g.getImageData(0, i.naturalHeight - 1, i.naturalWidth, 1).data;
    for (let k = 3; k < row.length; k += 4) if (row[k] > 0) return true;
    return false;
  });
  const ids = Array.from(document.querySelectorAll('[id]')).map(e => e.id);
  const links = Array.from(document.querySelectorAll('a[href^="#"]')).map(a => a.getAttribute('href'));
  const external = Array.from(document.querySelectorAll('[src],link[href]'))
    .map(e => e.getAttribute('src') || e.getAttribute('href')).filter(s => !s.startsWith('data:'));
  return {
    title: document.title,
    height: document.body.scrollHeight,
    images: imgs.length,
    broken_images: imgs.filter((i, k) => !(i.naturalWidth > 0) || !decoded[k] || !bottom[k]).map(i => i.alt),
    image_widths: imgs.map(i => i.naturalWidth),
    links: links.length,
    unresolved: links.filter(h => !document.getElementById(decodeURIComponent(h.slice(1)))),
    duplicate_ids: ids.filter((x, i) => ids.indexOf(x) !== i),
    external: external,
    claims: Array.from(document.querySelectorAll('section.claim')).map(s => s.id),
    rows: document.querySelectorAll('#claims tbody tr').length,
  };
})()
"""

SORT_FILTER_JS = r"""
(() => {
  const t = document.getElementById('claims'), th = t.tHead.rows[0].cells;
  const col = i => Array.from(t.tBodies[0].rows).map(r => r.cells[i].textContent);
  th[0].click(); const asc = col(0);
  th[0].click(); const desc = col(0);
  const v = document.getElementById('f-verdict'); v.value = 'refuted';
  v.dispatchEvent(new Event('input'));
  const visible = Array.from(t.tBodies[0].rows).filter(r => !r.hidden);
  const out = {asc, desc, refuted_visible: visible.map(r => r.getAttribute('data-verdict')),
               refuted_total: t.querySelectorAll('tbody tr[data-verdict="refuted"]').length,
               count_text: document.getElementById('f-count').textContent};
  v.value = ''; v.dispatchEvent(new Event('input'));
  const q = document.getElementById('f-text'); q.value = 'logit_energy'; q.dispatchEvent(new Event('input'));
  out.text_visible = Array.from(t.tBodies[0].rows).filter(r => !r.hidden).map(r => r.cells[0].textContent);
  q.value = ''; q.dispatchEvent(new Event('input'));
  location.hash = '#claim-selftest.dg_tail_doubled';
  out.scrolled_to = Math.round(document.getElementById('claim-selftest.dg_tail_doubled')
                                 .getBoundingClientRect().top);
  return out;
})()
"""

FAKE = "test_report_browser_fig"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A real report: selftest claims at quick budgets and one registered figure."""
    def draw(ax):
        ax.plot([0, 1, 2], [0.0, 0.5, 0.25], marker="o", label="p̂")
        ax.axhline(0.06, ls="--", label="δ")
        ax.legend()
        return {"x": [0, 1, 2]}

    return write_selftest_report(tmp_path_factory, FAKE, draw, "A test figure: p̂ against δ.", figsize=(4, 3))


@pytest.fixture(scope="module")
def page(request, tmp_path_factory):
    exe = find_browser()
    if exe is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set THEORYCHECK_CHROMIUM)")
    report = request.getfixturevalue("report")         # built only when a browser can open it
    b = Browser(exe, tmp_path_factory.mktemp("profile"))
    try:
        url = (report / "report.html").resolve().as_uri()
        s = b.open(url)
        checks = b.evaluate(s, CHECK_JS)
        interaction = b.evaluate(s, SORT_FILTER_JS)
        b.drain(0.3)
        yield {"url": url, "checks": checks, "interaction": interaction, "errors": b.errors(),
               "requests": b.requests()}
    finally:
        b.close()


def test_the_report_renders_with_every_claim(page):
    c = page["checks"]
    assert c["title"].startswith("theorycheck report") and c["height"] > 1000
    assert sorted(c["claims"]) == ["claim-selftest.dg_tail", "claim-selftest.dg_tail_doubled",
                                   "claim-selftest.logit_energy_identity"]
    assert c["rows"] == 3


def test_every_figure_loads(page):
    c = page["checks"]
    assert c["images"] == 1 and not c["broken_images"] and all(w > 100 for w in c["image_widths"])


def test_every_internal_link_resolves_and_ids_are_unique(page):
    c = page["checks"]
    assert c["links"] >= 10 and c["unresolved"] == [] and c["duplicate_ids"] == []


def test_nothing_is_fetched_but_the_page(page):
    assert page["checks"]["external"] == []
    assert [u for u in page["requests"] if not u.startswith("data:") and u != page["url"]] == []


def test_no_console_errors(page):
    assert page["errors"] == []


def test_the_claims_table_sorts_and_filters(page):
    i = page["interaction"]
    assert i["asc"] == sorted(i["asc"]) and i["desc"] == sorted(i["asc"], reverse=True)
    assert i["refuted_visible"] == ["refuted"] * i["refuted_total"] and i["refuted_total"] == 1
    from proofs_check.engine import claims

    assert i["count_text"] == f"1 of {len(claims('selftest'))} claims"       # the report holds selftest's
    assert i["text_visible"] == ["selftest.logit_energy_identity"]
    assert 0 <= i["scrolled_to"] < 50          # the anchor scrolled its claim to the top
