// Checks custom resources against their CRDs' schemas, as the API server would
// and one step further: kubernetes-models (generated from the upstream CRDs)
// validates types, enums and required fields; TypeScript's excess-property check
// finds unknown fields, which a structural CRD schema would silently prune
// (a typo such as "schem: https" would be dropped, not refused).
// Usage: node check.mjs OBJECTS.json   (a JSON array of objects; other kinds are ignored)
// Prints one line per problem and exits 1 if there is any.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const KINDS = {
  "monitoring.coreos.com/v1 ServiceMonitor": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor",
  "monitoring.coreos.com/v1 PrometheusRule": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule",
  "cert-manager.io/v1 Certificate": "@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate",
  "cert-manager.io/v1 Issuer": "@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer",
  "cert-manager.io/v1 ClusterIssuer": "@kubernetes-models/cert-manager/cert-manager.io/v1/ClusterIssuer",
};

const docs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const problems = [];
const checked = [];
const ts = [];
for (const [i, d] of docs.entries()) {
  const key = `${d.apiVersion} ${d.kind}`;
  const mod = KINDS[key];
  if (!mod) continue;
  const label = `${d.kind}/${d.metadata?.name}`;
  checked.push(label);
  const kind = d.kind;
  const m = await import(mod);
  try {
    new m[kind](d).validate();
  } catch (e) {
    problems.push(`${label}: ${e.message}`);
  }
  ts.push(`import type { I${kind} as T${i} } from "${mod}";`);
  ts.push(`// ${label}\nexport const d${i}: T${i} = ${JSON.stringify(d, null, 1)};`);
}

if (ts.length) {
  const dir = mkdtempSync(join(here, ".objects-")) // beside node_modules, so tsc resolves the models;
  try {
    writeFileSync(join(dir, "objects.ts"), ts.join("\n") + "\n");
    const require = createRequire(join(here, "package.json"));
    const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
    try {
      execFileSync(process.execPath, [tsc, "--noEmit", "--strict", "--moduleResolution", "bundler",
        "--module", "esnext", "--target", "es2022",
        join(dir, "objects.ts")], { cwd: here, encoding: "utf8", stdio: "pipe" });
    } catch (e) {
      for (const line of String(e.stdout).split("\n").filter(Boolean))
        problems.push(line.replace(join(dir, "objects.ts"), "objects"));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const p of problems) console.log(p);
console.log(`k8s-schema: ${checked.length} objects checked (${checked.join(", ")}), ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
