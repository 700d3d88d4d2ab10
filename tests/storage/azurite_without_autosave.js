// Loaded into Azurite by the soak (node --require): its metadata database (LokiJS) is kept in
// memory and written to disk only at start and on close, not every 5 s. Azurite saves the whole
// database (a JSON file with an entry per blob the tables ever held) on its one thread every 5 s,
// and every request waits for it: 26 MB after a 15-minute soak, which stalled every stream of the
// service 0.7 to 0.9 s every 5 s, growing with the run. A cloud store has no such pause; the
// blobs' contents stay on disk as before. (--inMemoryPersistence, the emulator's own option, keeps
// the contents in memory too: a 15-minute soak's store stopped answering for minutes.)
"use strict";
const Module = require("module");
const load = Module._load;
let withoutAutosave = null;
Module._load = function (request, parent, isMain) {
  const exported = load.apply(this, arguments);
  if (request !== "lokijs") return exported;
  if (!withoutAutosave) {
    withoutAutosave = class extends exported {
      constructor(file, options) {
        super(file, Object.assign({}, options, { autosave: false }));
      }
    };
  }
  return withoutAutosave;
};
