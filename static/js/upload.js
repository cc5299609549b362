// Drag and drop onto the upload form's drop zone. The drop fills the normal
// <input type=file multiple>, so the form posts exactly as without JavaScript.
(function () {
  "use strict";

  function formatSize(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1048576) return (bytes / 1024).toFixed(0) + " kB";
    return (bytes / 1048576).toFixed(1).replace(".", ",") + " MB";
  }

  function showFiles(input, list) {
    if (!list) return;
    list.textContent = "";
    Array.prototype.forEach.call(input.files || [], function (file) {
      var li = document.createElement("li");
      li.textContent = file.name + " (" + formatSize(file.size) + ")";
      list.appendChild(li);
    });
  }

  document.querySelectorAll("[data-dropzone]").forEach(function (zone) {
    var input = zone.querySelector("input[type=file]");
    var list = zone.querySelector("[data-file-list]");
    if (!input) return;
    zone.classList.add("js");

    input.addEventListener("change", function () { showFiles(input, list); });

    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) {
        event.preventDefault();
        if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
        zone.classList.add("dragging");
      });
    });
    ["dragleave", "dragend"].forEach(function (name) {
      zone.addEventListener(name, function (event) {
        if (event.target === zone || !zone.contains(event.relatedTarget)) zone.classList.remove("dragging");
      });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      zone.classList.remove("dragging");
      var dropped = event.dataTransfer && event.dataTransfer.files;
      if (!dropped || !dropped.length) return;
      // Add to what is already chosen rather than replacing it.
      var transfer = new DataTransfer();
      Array.prototype.forEach.call(input.files || [], function (f) { transfer.items.add(f); });
      Array.prototype.forEach.call(dropped, function (f) { transfer.items.add(f); });
      input.files = transfer.files;
      showFiles(input, list);
    });
  });

  // Disable the button while posting so a double click does not upload twice.
  document.querySelectorAll("form[data-upload]").forEach(function (form) {
    form.addEventListener("submit", function () {
      var button = form.querySelector("button[type=submit]");
      if (button) { button.disabled = true; button.textContent = "Laddar upp…"; }
    });
  });
})();
