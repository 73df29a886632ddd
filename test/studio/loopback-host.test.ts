/**
 * `toolgen studio --host`: the studio answers requests addressed to the host it binds, as its printed
 * URL is, loopback addresses besides 127.0.0.1 included (the whole of 127.0.0.0/8 is loopback).
 */
import { describe, expect, it } from 'vitest';
import { studioAllowedHosts } from '../../src/cli/studio.js';
import { hostAllowed } from '../../src/studio/handler.js';

describe('studioAllowedHosts', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1:4319'],
    ['127.0.0.2', '127.0.0.2:4319'],
    ['127.1.2.3', '127.1.2.3:4319'],
    ['localhost', 'localhost:4319'],
    ['::1', '[::1]:4319'],
    ['10.0.0.5', '10.0.0.5:4319'],
  ])('--host %s answers Host %s', (host, header) => {
    expect(hostAllowed(header, studioAllowedHosts(host, []))).toBe(true);
  });

  it('adds no name for a wildcard address, and keeps --allowed-hosts', () => {
    expect(studioAllowedHosts('0.0.0.0', ['ops.example.com'])).toEqual(['ops.example.com']);
    expect(studioAllowedHosts('::', [])).toEqual([]);
    expect(hostAllowed('127.0.0.2:4319', studioAllowedHosts('127.0.0.1', []))).toBe(false);
  });
});
