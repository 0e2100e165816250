import { describe, expect, it } from 'vitest';
import { atAcct, parseHandle, validHost, webURL } from './handle';

describe('parseHandle', () => {
  it('accepts @user@host, user@host, ports, IPv6 and actor URLs', () => {
    expect(parseHandle('@alice@Mastodon.Social')).toEqual({ ok: true, q: '@alice@mastodon.social' });
    expect(parseHandle('  bob_1@example.com ')).toEqual({ ok: true, q: '@bob_1@example.com' });
    expect(parseHandle('@carol@127.0.0.1:8081')).toEqual({ ok: true, q: '@carol@127.0.0.1:8081' });
    expect(parseHandle('@d@[2001:db8::1]:8443')).toEqual({ ok: true, q: '@d@[2001:db8::1]:8443' });
    expect(parseHandle('@たろう@example.jp')).toEqual({ ok: true, q: '@たろう@example.jp' });
    expect(parseHandle('https://example.social/users/alice')).toEqual({ ok: true, q: 'https://example.social/users/alice' });
  });

  it('refuses what is not an account address', () => {
    expect(parseHandle('')).toEqual({ ok: false, reason: 'empty' });
    expect(parseHandle('   ')).toEqual({ ok: false, reason: 'empty' });
    for (const bad of ['alice', '@alice', '@alice@', '@@host', 'a@b@c', '@a b@host', '@a@ho st', '@a@host/path', '@a@-host.example',
      '@a@host:99999', '@a@host:0', 'javascript:alert(1)', '@a@host.example?x', '<img src=x>@host', 'https://', 'ftp://host/u']) {
      expect(parseHandle(bad), bad).toEqual({ ok: false, reason: 'format' });
    }
  });
});

describe('validHost', () => {
  it('takes host[:port] only', () => {
    expect(validHost('spam.example')).toBe(true);
    expect(validHost('spam.example:8443')).toBe(true);
    expect(validHost('[2001:db8::1]')).toBe(true);
    expect(validHost('https://spam.example')).toBe(false);
    expect(validHost('spam.example/x')).toBe(false);
    expect(validHost('')).toBe(false);
  });
});

describe('webURL', () => {
  it('lets only http(s) URLs become links or sources', () => {
    expect(webURL('https://r.example/a.png')).toBe('https://r.example/a.png');
    expect(webURL('http://r.example/')).toBe('http://r.example/');
    expect(webURL('javascript:alert(1)')).toBeNull();
    expect(webURL('data:text/html,<script>')).toBeNull();
    expect(webURL('/relative')).toBeNull();
    expect(webURL('')).toBeNull();
    expect(webURL(null)).toBeNull();
  });

  it('atAcct adds the leading @ once', () => {
    expect(atAcct('bob@r.example')).toBe('@bob@r.example');
    expect(atAcct('@bob@r.example')).toBe('@bob@r.example');
  });
});
