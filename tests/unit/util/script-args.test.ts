import { describe, expect, it } from 'vitest';
import { takeFlag, takeList } from '../../../src/util/script-args.js';

describe('script flags', () => {
  it('takes a flag and its value out, leaving the positional arguments', () => {
    const args = ['build/grid/g1', '--only', 'base,rtt-0', 'more.json', '--model', 'm.json'];
    expect(takeFlag(args, '--model')).toBe('m.json');
    expect(takeList(args, '--only')).toEqual(['base', 'rtt-0']);
    expect(args).toEqual(['build/grid/g1', 'more.json']);
    expect(takeFlag(args, '--model')).toBeUndefined();
    expect(takeList(args, '--absent')).toEqual([]);
  });
});
