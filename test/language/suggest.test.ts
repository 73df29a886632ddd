/** The name meant, and the one wording of "did you mean" that the compiler and the runtime share. */
import { describe, expect, it } from 'vitest';
import { closestName, didYouMean, withSuggestion } from '../../src/language/suggest.js';

describe('suggestions', () => {
  it('finds the name near enough to be a typo, and only such a name', () => {
    expect(closestName('gmail_serch', ['gmail_search', 'drive_upload'])).toBe('gmail_search');
    expect(closestName('weather', ['gmail_search', 'drive_upload'])).toBeNull();
  });

  it('asks the question, quoting a command as code', () => {
    expect(didYouMean('echo')).toBe("did you mean 'echo'?");
    expect(didYouMean('toolgen check', '`')).toBe('did you mean `toolgen check`?');
  });

  it('adds the question to a message only when there is a suggestion', () => {
    expect(withSuggestion("no tool named 'ecko'", 'echo')).toBe("no tool named 'ecko'; did you mean 'echo'?");
    expect(withSuggestion("no tool named 'zzz'", null)).toBe("no tool named 'zzz'");
    expect(withSuggestion("no tool named 'zzz'", undefined)).toBe("no tool named 'zzz'");
  });
});
