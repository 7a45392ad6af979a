import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const { version } = JSON.parse(readFileSync(here('../package.json'), 'utf8')) as { version: string };
/** Fluent's `tokens` object (every token name spelled out as `var(--name)`) as a Proxy: web/src/lib/fluent-tokens.ts. */
const fluentTokens: Plugin = {
  name: 'fluent-tokens-proxy',
  enforce: 'pre',
  resolveId(source, importer) {
    if (source === './tokens.js' && importer && /[\\/]@fluentui[\\/]tokens[\\/]lib[\\/]index\.js$/.test(importer)) {
      return here('src/lib/fluent-tokens.ts');
    }
    return null;
  },
};
/**
 * `import { Settings20Regular } from '@fluentui/react-icons'` rewritten to the icon's own module
 * (`@fluentui/react-icons/svg/settings`), in the console's code and in Fluent's. Through the package's main entry an
 * icon lives in a shared module holding hundreds of others; the bundler keeps every icon any page uses in that one
 * module and puts it where the first screen loads it, so the start-up chunk carried the icons of every lazy page.
 * One module per icon family lets each icon travel with the chunk that uses it. Build only (the dev server does
 * not split chunks).
 */
function fluentIconAtoms(): Plugin {
  const dir = here('../node_modules/@fluentui/react-icons/lib/atoms/svg');
  let files: Map<string, string> | undefined;
  const fileOf = (name: string) => {
    if (!files) {
      files = new Map();
      for (const f of readdirSync(dir).filter((f) => f.endsWith('.d.ts'))) {
        for (const m of readFileSync(`${dir}/${f}`, 'utf8').matchAll(/export declare const (\w+)\b/g)) files.set(m[1], f.slice(0, -5));
      }
    }
    return files.get(name);
  };
  const IMPORT = /import\s*\{([^}]*)\}\s*from\s*['"]@fluentui\/react-icons['"];?/g;
  return {
    name: 'fluent-icon-atoms',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!code.includes('@fluentui/react-icons') || id.includes('/@fluentui/react-icons/')) return null;
      if (!/\/web\/src\/.*\.tsx?$/.test(id) && !/\/node_modules\/@fluentui\/[^/]+\/lib\/.*\.js$/.test(id)) return null;
      const out = code.replace(IMPORT, (all, list: string) => {
        const byFile = new Map<string, string[]>();
        const rest: string[] = [];
        for (const spec of list.split(',').map((x) => x.trim()).filter(Boolean)) {
          const file = spec.startsWith('type ') ? undefined : fileOf(spec.split(/\s+as\s+/)[0]);
          if (file) byFile.set(file, [...(byFile.get(file) ?? []), spec]);
          else rest.push(spec);
        }
        const lines = [...byFile].map(([file, specs]) => `import { ${specs.join(', ')} } from '@fluentui/react-icons/svg/${file}';`);
        if (rest.length) lines.push(`import { ${rest.join(', ')} } from '@fluentui/react-icons';`);
        return lines.join(' ');
      });
      return out === code ? null : { code: out, map: null };
    },
  };
}

// the dev server forwards API calls to a running `npm start`
const api = process.env.API_URL ?? 'http://localhost:8080';

export default defineConfig({
  root: here('.'),
  plugins: [fluentTokens, fluentIconAtoms(), react()],
  define: { __APP_VERSION__: JSON.stringify(version) },
  resolve: {
    // the zod contracts are shared with the server: the web imports them, never copies them
    alias: {
      '@contracts': here('../server/contracts'),
      // Griffel's RTL flipping of the console's own styles: a left-to-right-only console needs none (ltr-only.ts)
      'rtl-css-js/core': here('src/lib/ltr-only.ts'),
    },
  },
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    sourcemap: false,
    // .vite/manifest.json: scripts/bench-web.ts follows it to size the initial JavaScript of a route
    manifest: true,
    chunkSizeWarningLimit: 1500,
    // every browser the console supports runs ES2022 as is (no down-levelled class fields or private methods)
    target: 'es2022',
    // no modulepreload polyfill in the entry: browsers without <link rel=modulepreload> (Safari before 17) still load
    // every module through its imports, only without the head start
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // everything main.tsx imports statically goes into one chunk: Rolldown would otherwise split the start-up code
        // into a dozen shared chunks (each gzipped alone, plus import/export glue), about 11 kB gzip more to load
        codeSplitting: {
          groups: [
            { name: 'app', test: /\/web\/src\/main\.tsx$/ },
            // The groups below exist for /health's first load (budget 250 kB gzip, scripts/bench-web.ts). With every lazy
            // page sharing a different subset of Fluent, Rolldown cut the page's static imports into ~30 chunks of
            // 0.2–8 kB (one per set of pages sharing them), each gzipped alone: about 7 kB gzip more than the same code
            // in a few files. Each group joins modules that the pages loading one of them nearly all load together.
            // `includeDependenciesRecursively: false` where a group would otherwise pull tabster or icons with it (and
            // make pages that only need those load the whole group). Measured per page in web/README.md.
            // Dropdown, Combobox, SearchBox: /health, /incidents and job history (which loads SearchBox without using it)
            { name: 'fluent-pickers', includeDependenciesRecursively: false, test: /node_modules\/@fluentui\/(react-search\/|react-combobox\/lib\/(components\/(Dropdown\/|Combobox\/(?!useInputTriggerSlot))|contexts\/(ComboboxContext|useComboboxContextValues)\.js|utils\/useComboboxPositioning\.js|hooks\/useTabsterEscapeIgnore\.js|components\/Option\/(renderOption|Option)\.js))/ },
            // Field's validation icons and focus-within: also used without Field (MessageBar pages), so kept out of fluent-field
            { name: 'field-icons', test: /node_modules\/@fluentui\/(react-icons\/lib\/atoms\/svg\/(checkmark-circle|diamond-dismiss)\.js|react-tabster\/lib\/(hooks\/useFocusWithin|focus\/focusWithinPolyfill)\.js)/ },
            // Input and TagPicker's input slot: the form pages (form-fields) and /health
            { name: 'fluent-input', test: /node_modules\/@fluentui\/(react-input\/|react-combobox\/lib\/components\/Combobox\/useInputTriggerSlot\.js)/ },
            // Field: the form pages; /health labels its filters without it (components/labeled-control.tsx)
            { name: 'fluent-field', test: /node_modules\/@fluentui\/react-field\// },
            // the status cells and formatters every list page uses
            { name: 'status', test: /\/web\/src\/(lib\/format|components\/status\/(health|text-styles|health-indicator)|components\/data-table\/row-styles)\.tsx?$|\/server\/contracts\/duration\.ts$/ },
            // Fluent's one-function hooks (0.2–0.8 kB each) not already in the start-up chunk
            { name: 'fluent-hooks', includeDependenciesRecursively: false, test: /node_modules\/@fluentui\/(react-utilities\/lib\/(hooks\/|compose\/isResolvedShorthand)|react-context-selector\/|react-tabster\/lib\/hooks\/useMergeTabsterAttributes)/ },
          ],
        },
      },
    },
  },
  server: {
    proxy: { '/api': { target: api, ws: true }, '/kubeproxy': api },
  },
});
