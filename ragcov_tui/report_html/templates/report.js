// Sorting and filtering of the page's tables, and the item detail rows; no network, no eval.
// A table's number cells carry data-v (the sort key, or empty for "n/a"); a heading's data-col names
// its column, so the filter "faithfulness<0.5" keeps rows whose faithfulness cell is below 0.5 (a
// name also matches "name@k", as --fail-under does: "ndcg<0.5" reads ndcg@10). Other words match
// the row's text, case-insensitively; every term must hold.
(function () {
  "use strict";
  var COMPARE = /^([^<>=!\s]+)\s*(<=|>=|!=|==|=|<|>)\s*(-?\d*\.?\d+)$/;
  function rowsOf(table) {
    return Array.prototype.filter.call(table.tBodies[0].rows, function (r) { return !r.classList.contains("detail"); });
  }
  function detailOf(row) {
    var next = row.nextElementSibling;
    return next && next.classList.contains("detail") ? next : null;
  }
  function cellValue(cell) {
    var v = cell.getAttribute("data-v");
    if (v === null) { return cell.textContent.trim().toLowerCase(); }
    return v === "" ? null : parseFloat(v);
  }
  function sortBy(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.cells, th);
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var rows = rowsOf(table).map(function (r, i) { return { row: r, key: cellValue(r.cells[index]), i: i }; });
    rows.sort(function (a, b) {
      if (a.key === null || b.key === null) { return a.key === b.key ? a.i - b.i : (a.key === null ? 1 : -1); }
      var d = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      return (ascending ? d : -d) || a.i - b.i;
    });
    var body = table.tBodies[0];
    rows.forEach(function (r) {
      var detail = detailOf(r.row);
      body.appendChild(r.row);
      if (detail) { body.appendChild(detail); }
    });
  }
  function holds(op, value, limit) {
    switch (op) {
      case "<": return value < limit; case "<=": return value <= limit;
      case ">": return value > limit; case ">=": return value >= limit;
      case "!=": return value !== limit; default: return value === limit;
    }
  }
  function columnsNamed(table, name) {
    var found = [];
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      var col = (th.getAttribute("data-col") || "").toLowerCase();
      if (col && (col === name || col.indexOf(name + "@") === 0)) { found.push(i); }
    });
    return found;
  }
  function applyFilter(input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    var terms = input.value.trim().toLowerCase().split(/[\s,]+/).filter(Boolean);
    var rows = rowsOf(table), shown = 0;
    rows.forEach(function (row) {
      var keep = terms.every(function (term) {
        var m = COMPARE.exec(term);
        if (m) {
          return columnsNamed(table, m[1]).some(function (i) {
            var v = row.cells[i] ? row.cells[i].getAttribute("data-v") : "";
            return v !== "" && v !== null && holds(m[2], parseFloat(v), parseFloat(m[3]));
          });
        }
        return row.textContent.toLowerCase().indexOf(term) !== -1;
      });
      row.hidden = !keep;
      var detail = detailOf(row);
      if (detail && !keep) { detail.hidden = true; }
      if (keep) { shown++; }
    });
    var counter = document.querySelector('[data-count="' + table.id + '"]');
    if (counter) { counter.textContent = shown + " of " + rows.length + " rows"; }
  }
  function toggle(row) {
    var detail = detailOf(row);
    if (detail) { detail.hidden = !detail.hidden; row.setAttribute("aria-expanded", String(!detail.hidden)); }
  }
  document.querySelectorAll("table.data").forEach(function (table) {
    table.tHead.querySelectorAll("th").forEach(function (th) {
      th.addEventListener("click", function () { sortBy(table, th); });
    });
    rowsOf(table).forEach(function (row) {
      if (!detailOf(row)) { return; }
      row.classList.add("item");
      row.tabIndex = 0;
      row.addEventListener("click", function () { toggle(row); });
      row.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(row); } });
    });
  });
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    input.addEventListener("input", function () { applyFilter(input); });
    applyFilter(input);
  });
}());
