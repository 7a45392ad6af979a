import { describe, expect, it } from 'vitest';
import { NOTIFICATION_EVENTS } from '../../../contracts/notifications.js';
import type { EventResource, RenderInput } from '../types.js';
import { renderNotification, templateProblems } from './index.js';

const PUBLIC = 'https://console.example';

function resource(kind: EventResource['kind'], extra: Partial<EventResource> = {}): EventResource {
  const silenceable = kind !== 'incident' && kind !== 'playbook';
  return {
    kind, id: `${kind}-1`, name: `${kind}-one`, type: kind === 'config' ? 'Kubernetes::Pod' : 'http', health: 'unhealthy',
    status: 'open', description: 'something is wrong', labels: { env: 'prod' }, tags: { team: 'core' },
    permalink: `/${kind}/${kind}-1`, silenceLink: silenceable ? `/notifications/silences/add?${kind}_id=${kind}-1` : undefined,
    env: {
      check: { name: 'api-check', labels: { env: 'prod' } }, canary: { name: 'canary-a', namespace: 'default' },
      check_status: { error: 'connection refused' },
      incident: { incident_id: 'INC-7', title: 'Checkout down', severity: 'High', type: 'availability', status: 'open' },
      responder: { name: 'Alice' }, author: { name: 'Bob' }, comment: { comment: 'looking' },
      evidence: { description: 'p99 ok' }, hypothesis: { title: 'db' }, playbook: { name: 'restart-pod' },
    },
    silenceKeys: {}, ...extra,
  };
}

const input = (eventName: string, r: EventResource, over: Partial<RenderInput> = {}): RenderInput => ({
  eventName, resource: r, rule: { title: null, template: null }, channel: 'email', publicUrl: PUBLIC, ...over,
});

describe('default messages', () => {
  it.each(NOTIFICATION_EVENTS.map((e) => [e]))('%s: a title, the resource link, the silence link when silenceable', (eventName) => {
    const kind = eventName.split('.')[0] as EventResource['kind'];
    const r = resource(kind);
    const m = renderNotification(input(eventName, r));
    expect(m.title).toBeTruthy();
    expect(`${m.title}\n${m.markdown}`).not.toMatch(/undefined|<no value>|null/);
    expect(m.markdown).toContain(`${PUBLIC}${r.permalink}`);
    if (r.silenceLink) expect(m.markdown).toContain(`[Silence](${PUBLIC}${r.silenceLink})`);
    expect(m.html).toContain(`href="${PUBLIC}${r.permalink}"`);
    expect(m.text).toContain(`${PUBLIC}${r.permalink}`);
  });

  it('words titles as the reference does', () => {
    const t = (e: string, kind: EventResource['kind']) => renderNotification(input(e, resource(kind))).title;
    expect(t('check.failed', 'check')).toBe('Check check-one has failed');
    expect(t('check.passed', 'check')).toBe('Check check-one has passed');
    expect(t('config.unhealthy', 'config')).toBe('Kubernetes::Pod config-one is unhealthy');
    expect(t('config.updated', 'config')).toBe('Kubernetes::Pod config-one was updated');
    expect(t('component.warning', 'component')).toBe('Component component-one is unhealthy');
    expect(t('incident.created', 'incident')).toBe('INC-7: Checkout down (High) created');
    expect(t('incident.status.resolved', 'incident')).toBe('INC-7: Checkout down status updated to resolved');
    expect(t('incident.comment.added', 'incident')).toBe('Bob left a comment on INC-7: Checkout down');
    expect(t('incident.responder.added', 'incident')).toBe('New responder added to INC-7: Checkout down');
    expect(t('playbook.run', 'playbook')).toBe('Playbook restart-pod run open');
  });

  it('carries the check error, canary, health, labels and tags', () => {
    const m = renderNotification(input('check.failed', resource('check')));
    expect(m.markdown).toContain('**Error**: connection refused');
    expect(m.markdown).toContain('**Canary**: canary-a');
    expect(m.markdown).toContain('**Health**: unhealthy');
    expect(m.markdown).toContain('- env: prod');
    expect(m.markdown).toContain('- team: core');
  });

  it('reads the check source\'s env: the last error, the description, the reference\'s .check_status in templates', () => {
    const r = resource('check', {
      description: 'pings the API',
      env: { check: { name: 'api', status: 'unhealthy', description: 'pings the API', last_error: 'HTTP 503' }, canary: { name: 'c' } },
    });
    const m = renderNotification(input('check.failed', r));
    expect(m.markdown).toContain('**Error**: HTTP 503\n**Description**: pings the API');
    const custom = renderNotification(input('check.failed', r, { rule: { title: null, template: 'Error: {{ .check_status.error }} ({{ .check_status.status }})' } }));
    expect(custom.markdown).toBe('Error: HTTP 503 (unhealthy)');
  });

  it('a digest is "N checks failing", each linked with its silence link', () => {
    const group = Array.from({ length: 50 }, (_x, i) => resource('check', { id: `c${i}`, name: `check-${i}`, permalink: `/health?checkId=c${i}`, silenceLink: `/notifications/silences/add?check_id=c${i}` }));
    const m = renderNotification(input('check.failed', group[0], { group, channel: 'slack' }));
    expect(m.title).toBe('50 checks failing');
    for (const i of [0, 17, 49]) {
      expect(m.markdown).toContain(`[check-${i}](${PUBLIC}/health?checkId=c${i})`);
      expect(m.markdown).toContain(`(${PUBLIC}/notifications/silences/add?check_id=c${i})`);
    }
    expect(m.markdown.split('\n')).toHaveLength(50);
    expect(JSON.stringify(m.slack)).toContain(`<${PUBLIC}/health?checkId=c49|check-49>`);
  });
});

describe('custom templates', () => {
  const rule = {
    title: 'Check {{ .check.name }} in {{ .canary.name }}{{ if eq channel "slack" }} :red_circle:{{ end }}',
    template: [
      '{{ if eq channel "slack" }}*slack* body{{ else if eq channel "email" }}email body{{ else }}other body{{ end }}',
      '{{ range $k, $v := .check.labels }}- {{ $k }}={{ $v }}',
      '{{ end }}{{ if and .check_status (ne .check_status.error "") }}Error: {{ .check_status.error }}{{ end }}',
      '{{ if not .missing }}no missing{{ end }} {{ or .nothing "fallback" }}',
      '[Open]({{ .permalink }}) [Silence]({{ .silenceURL }})',
    ].join('\n'),
  };

  it('renders channel, if/else if/else, range, eq ne and or not, permalink and silenceURL', () => {
    const slack = renderNotification(input('check.failed', resource('check'), { rule, channel: 'slack' }));
    expect(slack.title).toBe('Check api-check in canary-a :red_circle:');
    expect(slack.markdown).toContain('*slack* body');
    expect(slack.markdown).toContain('- env=prod');
    expect(slack.markdown).toContain('Error: connection refused');
    expect(slack.markdown).toContain('no missing fallback');
    expect(slack.markdown).toContain(`[Silence](${PUBLIC}/notifications/silences/add?check_id=check-1)`);
    expect(JSON.stringify(slack.slack)).toContain(`<${PUBLIC}/check/check-1|Open>`);
    const email = renderNotification(input('check.failed', resource('check'), { rule, channel: 'email' }));
    expect(email.title).toBe('Check api-check in canary-a');
    expect(email.markdown).toMatch(/^email body/);
    expect(email.html).toContain(`<a href="${PUBLIC}/check/check-1">Open</a>`);
    expect(renderNotification(input('check.failed', resource('check'), { rule, channel: 'teams' })).markdown).toMatch(/^other body/);
  });

  it('a template without a title keeps the default title; labelsFormat and slackHealthEmoji are there', () => {
    const m = renderNotification(input('check.failed', resource('check'), {
      rule: { title: null, template: '{{ slackHealthEmoji "unhealthy" }} {{ labelsFormat .check.labels }}' },
    }));
    expect(m.title).toBe('Check check-one has failed');
    expect(m.markdown).toContain(':red_circle: ### Labels:\n**env**: prod');
  });

  it('a template rendering Slack blocks JSON is sent as those blocks on slack', () => {
    const template = '{{ if eq channel "slack" }}{"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "{{ .check.name }}"}}]}{{ else }}plain {{ .check.name }}{{ end }}';
    const m = renderNotification(input('check.failed', resource('check'), { rule: { title: null, template }, channel: 'slack' }));
    expect(m.slack?.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: 'api-check' } }]);
    expect(renderNotification(input('check.failed', resource('check'), { rule: { title: null, template } })).markdown).toBe('plain api-check');
  });

  it('a digest custom body gets the group appended unless it ranges over groupedResources', () => {
    const group = [resource('check', { id: 'a', name: 'a' }), resource('check', { id: 'b', name: 'b' })];
    const plain = renderNotification(input('check.failed', group[0], { group, rule: { title: null, template: 'custom' } }));
    expect(plain.title).toBe('2 checks failing');
    expect(plain.markdown).toMatch(/^custom\n\n- \[a\]/);
    const ranged = renderNotification(input('check.failed', group[0], { group, rule: { title: null, template: '{{ range .groupedResources }}* {{ . }}\n{{ end }}' } }));
    expect(ranged.markdown).toBe('* a\n* b');
  });

  it('a run-time failure throws naming the field', () => {
    expect(() => renderNotification(input('check.failed', resource('check'), { rule: { title: '{{ index .check.labels 3 }}', template: null } })))
      .toThrow(/^title: template: 1:4: executing "index .check.labels 3"/);
  });
});

describe('templateProblems', () => {
  it('refuses named templates, unknown functions and syntax errors at the given path', () => {
    expect(templateProblems('{{ define "x" }}y{{ end }}')).toEqual([{ path: 'template', message: 'unsupported action "define" at 1:4' }]);
    expect(templateProblems('a\n{{template "x"}}', 'title')).toEqual([{ path: 'title', message: 'unsupported action "template" at 2:3' }]);
    expect(templateProblems('{{ block "x" . }}{{ end }}')[0].message).toMatch(/^unsupported action "block"/);
    expect(templateProblems('{{ exec "rm" }}', 'custom_services[0].properties.body')).toEqual([
      { path: 'custom_services[0].properties.body', message: 'unknown function "exec" at 1:4' },
    ]);
    expect(templateProblems('{{ if .x }}')).toEqual([{ path: 'template', message: expect.stringMatching(/if.*without \{\{end\}\}/) }]);
  });

  it('accepts channel, if/else, range, with, eq ne and or not and the gomplate functions', () => {
    expect(templateProblems('{{ if eq channel "slack" }}a{{ else }}b{{ end }}{{ range .x }}{{ . }}{{ end }}')).toEqual([]);
    expect(templateProblems('{{ with .check }}{{ .name | strings.ToUpper }}{{ end }}{{ if and (ne 1 2) (or .a (not .b)) }}x{{ end }}')).toEqual([]);
  });
});
