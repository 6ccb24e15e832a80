// Loaded first in every Node process of a JS run in a container (NODE_OPTIONS --require from
// SEBGen's private folder, see sandbox/js_run.py): node:assert's checks stay the originals, so code
// under test that reassigns them (to no-ops that let a failing test pass) changes nothing. In strict
// mode the assignment throws where it is made; otherwise it is ignored.
"use strict";

const assert = require("assert");

for (const checks of [assert, assert.strict]) Object.freeze(checks);
