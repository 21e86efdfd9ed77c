// Tessera verifier web page: creates OpenID4VP presentation requests through the JSON API, shows the QR code and
// the link, polls the transaction status, and shows the verified claims after the wallet's redirect.
// Plain JavaScript, no dependencies. Every string from the server is inserted as text (textContent / value /
// attributes set through the DOM), never as HTML.
//
// Stable element ids (scripts/web-test asserts on these):
//   #page-error                 alert for failures of the page itself (API unreachable, bad request); hidden if none
//   #create-section             the "new request" form (hidden on the result view)
//     #template                 <select>: age_over_18 | pid_basic | mdl
//     #template-description     what the chosen template asks for
//     #response-mode            <select>: direct_post.jwt | direct_post
//     #create-button            submits POST /api/transactions
//   #request-section            shown once a request exists
//     #qr                       <img src="api/transactions/{id}/qr.svg">
//     #request-link             <a href="openid4vp://…">
//     #request-uri              read-only <input> holding the same openid4vp:// link
//     #copy-button, #copy-feedback
//     #status                   text and data-status = pending | completed | failed | expired
//                               (set to pending when the request is created; "unknown" while polling fails)
//     #status-error             shown when the transaction failed: #status-error-code (error),
//                               #status-error-description (error_description)
//     #transaction-id, #request-response-mode, #expires-at
//   #result-section             shown when the page is opened with ?transaction_id=…&response_code=…
//     #result-message           data-result = loading | ok | used | error
//     #claims-table             table of verified claims; #claims-body holds one <tr> per claim, each with
//                               data-query, data-format, data-type, data-path, data-value and cells in the order
//                               credential query id, format, vct/doctype, claim path, value
//     #new-request-link         back to the form
"use strict";

(() => {
  const API = "api/transactions";
  const POLL_INTERVAL_MS = 1000;
  const TERMINAL = new Set(["completed", "failed", "expired"]);

  const TEMPLATE_DESCRIPTIONS = {
    age_over_18: "Proof of being over 18: the mDL element age_over_18 or the PID claim age_equal_or_over.18.",
    pid_basic: "From the PID (SD-JWT VC urn:eudi:pid:1): given_name, family_name and birthdate.",
    mdl: "From the mobile driving licence (org.iso.18013.5.1.mDL): family_name, given_name, birth_date, age_over_18.",
  };

  const STATUS_LABELS = {
    pending: "pending: waiting for the wallet",
    completed: "completed: the presentation was verified",
    failed: "failed",
    expired: "expired: the request timed out",
  };

  const $ = (id) => document.getElementById(id);

  /** Fetches JSON; resolves to {status, body} (body null when the response is not JSON). */
  async function fetchJSON(url, options = {}) {
    const response = await fetch(url, {
      cache: "no-store",
      credentials: "same-origin",
      ...options,
      headers: { Accept: "application/json", ...(options.headers || {}) },
    });
    let body = null;
    const text = await response.text();
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch (_) {
        body = null;
      }
    }
    return { status: response.status, body };
  }

  /** "invalid_request: reason" from an OAuth-style error body, or a fallback. */
  function describeError(body, fallback) {
    if (body && typeof body === "object" && typeof body.error === "string") {
      return typeof body.error_description === "string" && body.error_description !== ""
        ? `${body.error}: ${body.error_description}`
        : body.error;
    }
    return fallback;
  }

  function showPageError(message) {
    const el = $("page-error");
    el.textContent = message;
    el.hidden = message === "";
  }

  function formatTime(value) {
    if (typeof value !== "string" && typeof value !== "number") return "";
    const date = new Date(typeof value === "number" ? value * 1000 : value);
    if (Number.isNaN(date.getTime())) return String(value);
    return date.toLocaleString();
  }

  // ---- Creating a request and following its status --------------------------------------------------------

  let pollTimer = null;
  let pollGeneration = 0;

  function stopPolling() {
    pollGeneration += 1;
    if (pollTimer !== null) {
      clearTimeout(pollTimer);
      pollTimer = null;
    }
  }

  function setStatus(status, error, errorDescription) {
    const el = $("status");
    el.dataset.status = status;
    el.textContent = STATUS_LABELS[status] || status;
    el.className = `status status-${TERMINAL.has(status) || status === "pending" ? status : "unknown"}`;
    // A finished request cannot be presented again: the QR code is dimmed.
    $("qr").classList.toggle("done", TERMINAL.has(status));

    $("status-error").hidden = !(typeof error === "string" && error !== "") &&
      !(typeof errorDescription === "string" && errorDescription !== "");
    $("status-error-code").textContent = typeof error === "string" ? error : "";
    $("status-error-description").textContent = typeof errorDescription === "string" ? errorDescription : "";
  }

  async function poll(transactionID, generation) {
    if (generation !== pollGeneration) return;
    let next = true;
    try {
      const { status, body } = await fetchJSON(`${API}/${encodeURIComponent(transactionID)}`);
      if (generation !== pollGeneration) return;
      if (status === 200 && body && typeof body.status === "string") {
        setStatus(body.status, body.error, body.error_description);
        if (body.expires_at !== undefined) $("expires-at").textContent = formatTime(body.expires_at);
        next = !TERMINAL.has(body.status);
      } else if (status === 404) {
        setStatus("unknown", describeError(body, "not_found"), "The verifier does not know this transaction.");
        next = false;
      } else {
        setStatus("unknown", describeError(body, `HTTP ${status}`), "Retrying…");
      }
    } catch (err) {
      if (generation !== pollGeneration) return;
      setStatus("unknown", "network_error", `Cannot reach the verifier (${err.message}); retrying…`);
    }
    if (next && generation === pollGeneration) {
      pollTimer = setTimeout(() => poll(transactionID, generation), POLL_INTERVAL_MS);
    }
  }

  function showRequest(created, responseMode) {
    const id = String(created.transaction_id);
    const uri = String(created.authorization_request_uri);

    $("transaction-id").textContent = id;
    $("request-response-mode").textContent =
      typeof created.response_mode === "string" ? created.response_mode : responseMode;
    $("expires-at").textContent = formatTime(created.expires_at);

    const qr = $("qr");
    qr.src = `${API}/${encodeURIComponent(id)}/qr.svg`;

    const link = $("request-link");
    // Only the wallet scheme is ever put into href, so a server string cannot become a javascript: URL.
    if (/^openid4vp:\/\//i.test(uri)) {
      link.href = uri;
      link.removeAttribute("aria-disabled");
    } else {
      link.removeAttribute("href");
      link.setAttribute("aria-disabled", "true");
    }
    link.textContent = "Open in wallet";
    $("request-uri").value = uri;
    $("copy-feedback").textContent = "";

    setStatus("pending");
    $("request-section").hidden = false;

    stopPolling();
    const generation = pollGeneration;
    poll(id, generation);
  }

  async function createRequest(event) {
    event.preventDefault();
    const button = $("create-button");
    const template = $("template").value;
    const responseMode = $("response-mode").value;
    showPageError("");
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      const { status, body } = await fetchJSON(API, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ template, response_mode: responseMode }),
      });
      if (
        (status === 201 || status === 200) && body &&
        typeof body.transaction_id === "string" && typeof body.authorization_request_uri === "string"
      ) {
        showRequest(body, responseMode);
        $("request-heading").focus({ preventScroll: true });
      } else {
        showPageError(`Could not create the request: ${describeError(body, `HTTP ${status}`)}`);
      }
    } catch (err) {
      showPageError(`Could not reach the verifier: ${err.message}`);
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  }

  async function copyLink() {
    const input = $("request-uri");
    const feedback = $("copy-feedback");
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(input.value);
      } else {
        input.focus();
        input.select();
        if (!document.execCommand("copy")) throw new Error("copy refused");
      }
      feedback.textContent = "Copied to the clipboard.";
    } catch (_) {
      input.focus();
      input.select();
      feedback.textContent = "Copying is not allowed here: the link is selected, press Ctrl+C (⌘C).";
    }
  }

  function updateTemplateDescription() {
    $("template-description").textContent = TEMPLATE_DESCRIPTIONS[$("template").value] || "";
  }

  // ---- The wallet's redirect: show the verified claims -----------------------------------------------------

  /** Flattens JSON into [dotted path, leaf value] pairs; arrays use their index as a path segment. */
  function flatten(value, prefix, out) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.push([prefix, value]);
      value.forEach((item, index) => flatten(item, prefix === "" ? String(index) : `${prefix}.${index}`, out));
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      if (keys.length === 0) out.push([prefix, value]);
      for (const key of keys) flatten(value[key], prefix === "" ? key : `${prefix}.${key}`, out);
    } else {
      out.push([prefix, value]);
    }
    return out;
  }

  function valueText(value) {
    if (typeof value === "string") return value;
    if (value === undefined) return "";
    return JSON.stringify(value);
  }

  const MAX_SHOWN_VALUE = 120;

  function addClaimRow(tbody, queryID, format, type, path, value) {
    const text = valueText(value);
    const row = document.createElement("tr");
    row.dataset.query = queryID;
    row.dataset.format = format;
    row.dataset.type = type;
    row.dataset.path = path;
    row.dataset.value = text;
    for (const [cellText, className] of [[queryID, "meta"], [format, "meta"], [type, "meta"], [path, "claim"]]) {
      const cell = document.createElement("td");
      cell.className = className;
      cell.textContent = cellText;
      row.appendChild(cell);
    }
    const valueCell = document.createElement("td");
    valueCell.className = "value";
    if (text.length > MAX_SHOWN_VALUE) {
      // Long values (portraits, …) are cut for display; the full value stays in data-value and the tooltip.
      valueCell.textContent = `${text.slice(0, MAX_SHOWN_VALUE)}… (${text.length} characters)`;
      valueCell.title = text;
    } else {
      valueCell.textContent = text;
    }
    row.appendChild(valueCell);
    tbody.appendChild(row);
  }

  function renderClaims(verifiedClaims) {
    const tbody = $("claims-body");
    tbody.replaceChildren();
    let rows = 0;
    for (const queryID of Object.keys(verifiedClaims)) {
      const presentations = Array.isArray(verifiedClaims[queryID])
        ? verifiedClaims[queryID] : [verifiedClaims[queryID]];
      for (const presentation of presentations) {
        if (presentation === null || typeof presentation !== "object") continue;
        const format = typeof presentation.format === "string" ? presentation.format : "";
        const type = typeof presentation.vct === "string" ? presentation.vct
          : typeof presentation.doctype === "string" ? presentation.doctype : "";
        const claims = presentation.claims !== undefined ? presentation.claims : {};
        for (const [path, value] of flatten(claims, "", [])) {
          addClaimRow(tbody, queryID, format, type, path, value);
          rows += 1;
        }
      }
    }
    return rows;
  }

  function setResult(kind, message) {
    const el = $("result-message");
    el.dataset.result = kind;
    el.textContent = message;
    el.className = `notice ${kind === "ok" ? "notice-ok" : kind === "loading" ? "" : "notice-error"}`;
  }

  async function showResult(transactionID, responseCode) {
    $("create-section").hidden = true;
    $("result-section").hidden = false;
    setResult("loading", "Loading the result…");
    const url = `${API}/${encodeURIComponent(transactionID)}?response_code=${encodeURIComponent(responseCode)}`;
    try {
      const { status, body } = await fetchJSON(url);
      if (status === 404 || status === 400 || status === 403) {
        setResult("used", "This response code was already used or is not valid, so the result cannot be shown " +
          `again. Create a new request to verify again. (${describeError(body, `HTTP ${status}`)})`);
        return;
      }
      if (status !== 200 || !body || typeof body !== "object") {
        setResult("error", `Could not load the result: ${describeError(body, `HTTP ${status}`)}`);
        return;
      }
      if (body.status !== "completed") {
        const reason = describeError(body, "");
        setResult("error", `The presentation did not complete (status: ${String(body.status)})` +
          (reason ? `: ${reason}` : "."));
        return;
      }
      const claims = body.verified_claims;
      if (!claims || typeof claims !== "object") {
        setResult("error", "The verifier returned no verified claims.");
        return;
      }
      const rows = renderClaims(claims);
      $("claims-table").hidden = rows === 0;
      setResult("ok", rows === 0
        ? "The presentation was verified, but it disclosed no claims."
        : `The presentation was verified. ${rows} claim${rows === 1 ? "" : "s"} disclosed:`);
    } catch (err) {
      setResult("error", `Could not reach the verifier: ${err.message}`);
    }
  }

  // ---- Start ------------------------------------------------------------------------------------------------

  function start() {
    const params = new URLSearchParams(window.location.search);
    const transactionID = params.get("transaction_id");
    const responseCode = params.get("response_code");
    $("create-form").addEventListener("submit", createRequest);
    $("copy-button").addEventListener("click", copyLink);
    $("template").addEventListener("change", updateTemplateDescription);
    $("request-heading").tabIndex = -1;
    $("qr").addEventListener("error", () => {
      $("qr").alt = "The QR code could not be loaded; use the link instead.";
    });
    updateTemplateDescription();
    if (transactionID && responseCode) {
      showResult(transactionID, responseCode);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
