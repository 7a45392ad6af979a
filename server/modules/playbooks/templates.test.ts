import { describe, expect, it } from 'vitest';
import {
  evalActionIf, evalDelay, evalFilters, normaliseDelims, renderTemplates, templateProblems, type TemplateEnv,
} from './templates.js';

const env: TemplateEnv = {
  params: { replicas: '3', name: 'web' },
  check: { name: 'api-health', status: 'unhealthy' },
  config: { name: 'web', tags: { namespace: 'prod' } },
  component: { name: 'frontend' },
  run: { id: '0190-run' },
  playbook: { name: 'scale' },
  request: { json: { ref: 'main' } },
  user: { email: 'ops@example.com' },
  env: { REGION: 'eu-1' },
};
const actions: Record<string, unknown> = { fetch: { result: { stdout: 'v1.2\n', exitCode: 0 } } };
const getAction = (name: string) => actions[name];

describe('renderTemplates', () => {
  it('renders every string depth first with both delimiters and the env names', () => {
    const out = renderTemplates({
      script: 'kubectl scale --replicas={{ .params.replicas }} -n $(.config.tags.namespace) deploy/{{.config.name}}',
      headers: [{ name: 'X-Run', value: '{{ .run.id }}' }, { name: 'X-User', value: '$(.user.email)' }],
      body: '{{ .check.name }} {{ .component.name }} {{ .request.json.ref }} {{ .env.REGION }}',
      count: 2,
      keep: true,
    }, env, getAction);
    expect(out).toEqual({
      script: 'kubectl scale --replicas=3 -n prod deploy/web',
      headers: [{ name: 'X-Run', value: '0190-run' }, { name: 'X-User', value: 'ops@example.com' }],
      body: 'api-health frontend main eu-1',
      count: 2,
      keep: true,
    });
  });

  it('getAction returns an earlier action, in a pipeline too', () => {
    expect(renderTemplates('{{ (getAction "fetch").result.stdout }}', env, getAction)).toBe('v1.2');
    expect(renderTemplates('$((getAction "fetch").result.stdout | strings.TrimSpace)', env, getAction)).toBe('v1.2');
    expect(() => renderTemplates({ exec: { script: '{{ (getAction "later").result }}' } }, env, getAction))
      .toThrow('exec.script: ');
  });

  it('getLastAction is the action that ran last, an empty map before any (the reference\'s fixtures use both forms)', () => {
    const last = { name: 'ask', status: 'completed', result: { slack: 'posted', code: 200 } };
    expect(renderTemplates('{{ getLastAction.result.slack }}', env, getAction, undefined, last)).toBe('posted');
    expect(renderTemplates('$(getLastAction.result.code)', env, getAction, undefined, last)).toBe('200');
    expect(renderTemplates('{{ (getLastAction).status }}', env, getAction, undefined, last)).toBe('completed');
    expect(renderTemplates('[{{ getLastAction | toJSON }}]', env, getAction)).toBe('[{}]');
  });

  it('a gotemplate header sets the delimiters of its text, whose {{ }} and $( ) are then text', () => {
    const script = '#! pwsh\n# gotemplate: left-delim=$[[ right-delim=]]\n$message = "$[[.config.name]]"\nWrite-Host "{{  $message }}" $(.params.name)\n$[[ (getAction "fetch").result.stdout | strings.TrimSpace ]] $[[ "]]" ]]';
    expect(renderTemplates(script, env, getAction)).toBe('#! pwsh\n$message = "web"\nWrite-Host "{{  $message }}" $(.params.name)\nv1.2 ]]');
    // only among the leading comment lines, as gomplate reads it
    expect(renderTemplates('echo hi\n# gotemplate: left-delim=[[ right-delim=]]\n{{ .params.name }} [[ .x ]]', env, getAction))
      .toBe('echo hi\n# gotemplate: left-delim=[[ right-delim=]]\nweb [[ .x ]]');
    expect(templateProblems({ actions: [{ name: 'a', exec: { script: '# gotemplate: left-delim=[[ right-delim=]]\n[[ .params.x' } }] }))
      .toEqual([{ path: 'spec.actions[0].exec.script', message: expect.stringContaining('unclosed action [[') }]);
  });

  it('has shellQuote, as the reference\'s templates use it', () => {
    expect(renderTemplates(`echo {{ .params.name | shellQuote }} {{ shellQuote "it's" }}`, env, getAction)).toBe(`echo 'web' 'it'"'"'s'`);
    expect(renderTemplates('{{ .params | toJSON | shellQuote }}', env, getAction)).toBe(`'{"name":"web","replicas":"3"}'`);
  });

  it('leaves a shell\'s own $( ) and $(( )) alone', () => {
    expect(renderTemplates('echo $(date) $((1 + 2)) $(.params.name)', env, getAction)).toBe('echo $(date) $((1 + 2)) web');
    expect(normaliseDelims('a $(.x | printf "%s)" ) b')).toBe('a {{.x | printf "%s)" }} b');
  });
});

describe('evalActionIf', () => {
  it('runs only while nothing failed without an if', () => {
    expect(evalActionIf(undefined, env, { failed: false })).toBe(true);
    expect(evalActionIf(undefined, env, { failed: true })).toBe(false);
  });

  it('knows success(), failure(), always(), skip(), timeout() and CEL over the env', () => {
    expect(evalActionIf('always()', env, { failed: true })).toBe(true);
    expect(evalActionIf('success()', env, { failed: true })).toBe(false);
    expect(evalActionIf('failure()', env, { failed: true })).toBe(true);
    expect(evalActionIf('skip()', env, { failed: false })).toBe(false);
    expect(evalActionIf('timeout()', env, { failed: true, timedOut: true })).toBe(true);
    expect(evalActionIf('failure() && check.status == "unhealthy"', env, { failed: true })).toBe(true);
    expect(evalActionIf('params.replicas == "3"', env, { failed: false })).toBe(true);
    expect(evalActionIf('"always()" == "x"', env, { failed: false })).toBe(false);
  });

  it('last_result() is the previous action\'s result, as the reference\'s fixtures use it', () => {
    const state = { failed: false, lastResult: { count: 2, rows: [] } };
    expect(evalActionIf('last_result().count > 0', env, state)).toBe(true);
    expect(evalActionIf('last_result().count > 5', env, state)).toBe(false);
    expect(renderTemplates('{{$rows:=index last_result "count"}}Found {{$rows}} changes', env, getAction, state.lastResult)).toBe('Found 2 changes');
  });

  it('getAction("name") and getLastAction() in CEL, with JSON() of a script\'s output (the reference\'s action-last-result)', () => {
    const rows: Record<string, Record<string, unknown>> = {
      'make dummy API call': { name: 'make dummy API call', status: 'completed', result: { stdout: '{"result": "success", "count": 20}\n', exitCode: 0 } },
    };
    const state = { failed: false, actions: { byName: (n: string) => rows[n], last: rows['make dummy API call'] } };
    expect(evalActionIf('getLastAction().result.stdout.JSON().count < 5', env, state)).toBe(false);
    expect(evalActionIf('getAction("make dummy API call").result.stdout.JSON().count > 15', env, state)).toBe(true);
    expect(evalActionIf('getLastAction().status == "completed" && success()', env, state)).toBe(true);
    expect(evalActionIf('size(getAction("nothing")) == 0', env, state)).toBe(true);
    expect(evalActionIf('{{ if eq (getAction "make dummy API call").status "completed" }}true{{ end }}', env, state)).toBe(true);
  });

  it('takes a template rendering "true", and throws on a non-boolean', () => {
    expect(evalActionIf('{{ eq .params.name "web" }}', env, { failed: false })).toBe(true);
    expect(evalActionIf('{{ eq .params.name "db" }}', env, { failed: false })).toBe(false);
    expect(() => evalActionIf('params.replicas', env, { failed: false })).toThrow(/expected true or false/);
  });
});

describe('evalDelay', () => {
  it('reads a duration, CEL or a template', () => {
    expect(evalDelay(undefined, env)).toBe(0);
    expect(evalDelay('5m', env)).toBe(300_000);
    expect(evalDelay('1h30m', env)).toBe(5_400_000);
    expect(evalDelay('duration("90s")', env)).toBe(90_000);
    expect(evalDelay('params.name == "web" ? "10s" : "1m"', env)).toBe(10_000);
    expect(evalDelay('{{ if eq .params.name "web" }}2s{{ end }}', env)).toBe(2_000);
    expect(() => evalDelay('params.name', env)).toThrow(/not a duration/);
  });
});

describe('evalFilters', () => {
  it('holds when every filter does', () => {
    expect(evalFilters(undefined, env)).toBe(true);
    expect(evalFilters(['check.name == "api-health"', 'config.tags.namespace.startsWith("pr")'], env)).toBe(true);
    expect(evalFilters(['check.name == "api-health"', 'check.status == "healthy"'], env)).toBe(false);
  });
});

describe('templateProblems', () => {
  it('names every bad template, CEL and schedule by its path', () => {
    const problems = templateProblems({
      actions: [
        { name: 'ok', if: 'always()', delay: '5m', exec: { script: 'echo {{ .params.x | quote }} $(date)' } },
        { name: 'bad', if: 'nosuch()', delay: 'params.x +', exec: { script: '{{ shout .x }}', env: [{ name: 'A', value: '$(.x | foo)' }] } },
      ],
      parameters: [{ name: 'p', default: '{{ .config.name' }],
      filters: ['1 +'],
      env: [{ name: 'E', value: '{{ bar }}' }],
      on: { canary: [{ event: 'failed', filter: 'check.status == "x" && fooFn()' }], schedule: [{ schedule: '@every 5m' }, { schedule: 'often' }] },
    });
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(Object.keys(byPath).sort()).toEqual([
      'spec.actions[1].delay', 'spec.actions[1].exec.env[0].value', 'spec.actions[1].exec.script', 'spec.actions[1].if',
      'spec.env[0].value', 'spec.filters[0]', 'spec.on.canary[0].filter', 'spec.on.schedule[1].schedule',
      'spec.parameters[0].default',
    ]);
    expect(byPath['spec.actions[1].exec.script']).toMatch(/function "shout" not defined/);
    expect(byPath['spec.actions[1].if']).toMatch(/nosuch/);
    expect(byPath['spec.on.canary[0].filter']).toMatch(/fooFn/);
  });

  it('is empty for a good spec', () => {
    expect(templateProblems({
      actions: [{ name: 'a', if: 'success() || timeout()', exec: { script: '{{ range $i, $x := .params }}{{ $x }}{{ end }}' } }],
      on: { schedule: [{ schedule: '*/5 * * * *' }, { schedule: '@hourly' }] },
    })).toEqual([]);
  });
});
