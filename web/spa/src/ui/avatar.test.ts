import { describe, expect, it } from 'vitest';
import { avatarLetter } from './basic';

describe('avatarLetter', () => {
  it('is the first letter or digit of the name', () => {
    expect(avatarLetter('alice')).toBe('A');
    expect(avatarLetter('  bob')).toBe('B');
    expect(avatarLetter('<img src=x onerror=alert(1)> Bob')).toBe('I');
    expect(avatarLetter('「春」')).toBe('春');
    expect(avatarLetter('42 Club')).toBe('4');
    expect(avatarLetter('<>!?')).toBe('?');
    expect(avatarLetter('')).toBe('?');
  });
});
