// Monaco's YAML language worker, bundled by Vite as its own file (`?worker`) per TOOLCHAIN.md.
import 'monaco-yaml/yaml.worker.js';
