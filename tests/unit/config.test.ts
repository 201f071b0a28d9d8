// The configuration is read once from the environment; a wrong value must stop the start with one
// line naming the variable.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, SETTINGS, loadConfig, settingsTable } from '../../src/server/core/config.ts';

const SECRET = 'x'.repeat(32);

/** loadConfig's ConfigError message for `env`; fails the test when it does not throw one. */
function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has a default for every optional setting', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4321);
    expect(config.host).toBe('0.0.0.0');
    expect(config.publicUrl).toBe('http://localhost:4321');
    expect(config.roles).toEqual(['web', 'smtp', 'worker']);
    expect(config.dataDir).toBe('./data');
    expect(config.dataPath).toBe(path.resolve('./data'));
    expect(config.databaseUrl).toBeUndefined();
    expect(config.secret).toBeUndefined();
    expect(config.adminEmail).toBe('admin@localhost');
    expect(config.sessionTtlSeconds).toBe(604800);
    expect(config.loginMaxFailures).toBe(5);
    expect(config.loginWindowSeconds).toBe(900);
    expect(config.consoleBodyLimitBytes).toBe(1024 * 1024);
    expect(config.trustProxy).toBe(false);
    expect(config.logLevel).toBe('info');
    expect(config.shutdownGraceSeconds).toBe(10);
  });

  it('derives the default PUBLIC_URL from PORT and drops trailing slashes from URLs', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://mail.example.com/' }).publicUrl).toBe('https://mail.example.com');
  });

  it('takes CONSOLE_TODAY as a calendar day only', () => {
    expect(loadConfig({}).consoleToday).toBeUndefined();
    expect(loadConfig({ CONSOLE_TODAY: '2028-02-29' }).consoleToday).toBe('2028-02-29');
    for (const wrong of ['2027-02-29', '2026-13-01', '2026-1-1', 'today', '2026-11-01T00:00:00Z'])
      expect(configError({ CONSOLE_TODAY: wrong })).toBe(`CONSOLE_TODAY must be a day YYYY-MM-DD, got '${wrong}'`);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '' }).port).toBe(4321);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['SESSION_TTL_SECONDS', '1h'],
    ['LOGIN_MAX_FAILURES', 'five'],
    ['CONSOLE_BODY_LIMIT_BYTES', '1MB'],
  ])('refuses %s=%j as a whole number, naming the variable', (name, value) => {
    const message = configError({ [name]: value });
    expect(message).toContain(name);
    expect(message).toContain(value);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('reads TRUST_PROXY=%j as %s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toBe(expected);
  });

  it('refuses a TRUST_PROXY that is not a boolean, naming the variable', () => {
    expect(configError({ TRUST_PROXY: 'sometimes' })).toContain('TRUST_PROXY');
  });

  it.each([
    ['PUBLIC_URL', 'localhost:4321'],
    ['PUBLIC_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://files.example.com'],
    ['PARENT_PLATFORM_URL', 'javascript:alert(1)'],
  ])('refuses %s=%j, naming the variable', (name, value) => {
    const env: Record<string, string> = { [name]: value };
    if (name === 'PARENT_PLATFORM_URL') env.PARENT_PLATFORM_SECRET = 'parent-secret';
    expect(configError(env)).toContain(name);
  });

  it('requires TRANSACT_SECRET with DATABASE_URL', () => {
    expect(configError({ DATABASE_URL: 'postgres://db.example/transact' })).toContain('TRANSACT_SECRET');
    const config = loadConfig({ DATABASE_URL: 'postgres://db.example/transact', TRANSACT_SECRET: SECRET });
    expect(config.databaseUrl).toBe('postgres://db.example/transact');
    expect(config.secret).toBe(SECRET);
  });

  it('refuses a DATABASE_URL that is not PostgreSQL and a TRANSACT_SECRET shorter than 32 characters', () => {
    expect(configError({ DATABASE_URL: 'mysql://db.example/transact', TRANSACT_SECRET: SECRET })).toContain(
      'DATABASE_URL',
    );
    expect(configError({ TRANSACT_SECRET: 'short' })).toContain('TRANSACT_SECRET');
  });

  it('reads secrets from <NAME>_FILE, trimmed, and prefers the variable itself', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'transact-config-'));
    const file = path.join(dir, 'secret');
    writeFileSync(file, `${SECRET}\n`);
    expect(loadConfig({ TRANSACT_SECRET_FILE: file }).secret).toBe(SECRET);
    expect(loadConfig({ TRANSACT_SECRET_FILE: file, TRANSACT_SECRET: 'y'.repeat(40) }).secret).toBe('y'.repeat(40));
    writeFileSync(file, 'admin-password-from-file\n');
    expect(loadConfig({ TRANSACT_ADMIN_PASSWORD_FILE: file }).adminPassword).toBe('admin-password-from-file');
    writeFileSync(file, 'postgres://db.example/transact\n');
    expect(loadConfig({ DATABASE_URL_FILE: file, TRANSACT_SECRET: SECRET }).databaseUrl).toBe(
      'postgres://db.example/transact',
    );
  });

  it('names the _FILE variable when its file cannot be read', () => {
    expect(configError({ TRANSACT_SECRET_FILE: '/nonexistent/transact-secret' })).toContain('TRANSACT_SECRET_FILE');
  });

  it('does not read _FILE for settings that are not secrets', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'transact-config-'));
    const file = path.join(dir, 'port');
    writeFileSync(file, '9999');
    expect(loadConfig({ PORT_FILE: file }).port).toBe(4321);
  });

  it('reads ROLES as a list and refuses an unknown role', () => {
    expect(loadConfig({ ROLES: 'web, worker' }).roles).toEqual(['web', 'worker']);
    const message = configError({ ROLES: 'web,mailer' });
    expect(message).toContain('ROLES');
    expect(message).toContain('mailer');
  });

  it('wants PARENT_PLATFORM_URL and PARENT_PLATFORM_SECRET together', () => {
    expect(configError({ PARENT_PLATFORM_URL: 'https://parent.example' })).toContain('PARENT_PLATFORM_SECRET');
    expect(configError({ PARENT_PLATFORM_SECRET: 'parent-secret' })).toContain('PARENT_PLATFORM_URL');
  });

  it('returns a frozen object', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(config.port).toBe(4321);
  });
});

describe('settingsTable', () => {
  it('has one row per setting, marking the secrets that accept _FILE', () => {
    const table = settingsTable();
    for (const setting of Object.values(SETTINGS)) expect(table).toContain(`\`${setting.env}\``);
    expect(table).toContain('`TRANSACT_SECRET` (or `_FILE`)');
    expect(table).not.toContain('`PORT` (or `_FILE`)');
  });

  it('is the table docs/configuration.md shows (regenerate it with `npm run admin -- config`)', () => {
    const documented = readFileSync(path.join(import.meta.dirname, '../../docs/configuration.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('|'));
    expect(documented).toEqual(settingsTable().split('\n'));
  });
});
