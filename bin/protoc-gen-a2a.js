#!/usr/bin/env node
import { runPlugin } from "../dist/host/run-node.js";
import { protocGenA2a } from "../dist/plugin.js";

runPlugin(protocGenA2a);
