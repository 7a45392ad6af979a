import { describe, expect, it } from 'vitest';
import { healthColor, incidentStatusColor, uptimeBarColor } from './health';

describe('health colours', () => {
  it('follows the spec: red, gray, orange, otherwise green', () => {
    for (const v of ['degraded', 'missing', 'unhealthy', 'false', false, 'Unhealthy']) expect(healthColor(v), String(v)).toBe('red');
    for (const v of ['unknown', 'suspended', null, undefined, '']) expect(healthColor(v), String(v)).toBe('gray');
    for (const v of ['warning', 'mixed']) expect(healthColor(v)).toBe('orange');
    for (const v of ['healthy', 'true', true, 'info', 'running']) expect(healthColor(v), String(v)).toBe('green');
  });

  it('colours the uptime bar green, orange above 75, red above 90', () => {
    expect(uptimeBarColor(75)).toBe('green');
    expect(uptimeBarColor(75.1)).toBe('orange');
    expect(uptimeBarColor(90)).toBe('orange');
    expect(uptimeBarColor(90.1)).toBe('red');
  });

  it('shows open incidents light green, closed gray, the rest blue', () => {
    expect(incidentStatusColor('open')).toBe('lightgreen');
    expect(incidentStatusColor('closed')).toBe('gray');
    expect(incidentStatusColor('mitigated')).toBe('blue');
  });
});
