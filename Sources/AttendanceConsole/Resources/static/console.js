// Live updates for On site now: server-sent events from /console/events add and remove rows.
// Everything else in the console works without JavaScript. Text goes in with textContent only.
"use strict";
(function () {
  var tables = document.querySelectorAll("tbody.presence");
  if (tables.length === 0 || !window.EventSource) { return; }
  var status = document.getElementById("live-status");
  // The stream starts after the last change this page shows: what changed since is replayed.
  var source = new EventSource("/console/events?after=" + encodeURIComponent(status.dataset.after));
  var lost = false;
  // The page's language, and its words (the presence template's status element holds them).
  var lang = document.documentElement.lang || "en";
  function word(name, fallback) { return (status && status.dataset[name]) || fallback; }
  // After a lost connection the page may have missed changes: it reloads once it is back.
  source.onopen = function () {
    if (lost) { window.location.reload(); return; }
    if (status) { status.textContent = word("live", "Live."); }
  };
  source.onerror = function () {
    lost = true;
    if (status) { status.textContent = word("reconnecting", "Reconnecting…"); }
    // A closed stream (the sign-in ended, or the server refused) is not retried by the browser.
    if (source.readyState === EventSource.CLOSED) { window.setTimeout(function () { window.location.reload(); }, 2000); }
  };
  // The changes since this page was rendered are no longer kept: start again from the page.
  source.addEventListener("reload", function () { window.location.reload(); });
  source.addEventListener("presence", function (message) {
    var change = JSON.parse(message.data);
    var body = document.querySelector('tbody.presence[data-site="' + CSS.escape(change.site) + '"]');
    // A site the page doesn't show yet (added after it loaded): the server only sends the viewer
    // sites they may see, so the page reloads to get the new site's section.
    if (!body) {
      if (change.state !== "out") { window.location.reload(); }
      return;
    }
    var existing = body.querySelector('tr[data-session="' + CSS.escape(change.session) + '"]');
    if (change.state === "out") {
      if (existing) { existing.remove(); }
    } else {
      var row = existing || document.createElement("tr");
      row.dataset.session = change.session;
      row.dataset.user = change.user;
      row.replaceChildren(nameCell(change), cell("since", since(change.since)),
        cell("confidence " + change.confidence, word(change.confidence, change.confidence)));
      if (!existing) { body.appendChild(row); }
    }
    refresh(body);
  });

  function cell(className, text) {
    var td = document.createElement("td");
    td.className = className;
    td.textContent = text;
    return td;
  }

  // The server sends `2026-11-25 09:03`; a German page writes the day `25.11.2026` as the server does.
  function since(text) {
    var day = /^(\d{4})-(\d{2})-(\d{2})(.*)$/.exec(text || "");
    if (!day || lang.split("-")[0] !== "de") { return text; }
    return day[3] + "." + day[2] + "." + day[1] + day[4];
  }

  function nameCell(change) {
    var td = document.createElement("td");
    td.className = "name";
    var link = document.createElement("a");
    link.href = "/console/sessions/" + encodeURIComponent(change.session);
    link.textContent = change.name;
    td.appendChild(link);
    return td;
  }

  function refresh(body) {
    var section = body.closest("section.site");
    var count = body.querySelectorAll("tr").length;
    section.querySelector(".count").textContent = count.toLocaleString(lang);
    section.querySelector("p.empty").hidden = count > 0;
  }
})();
