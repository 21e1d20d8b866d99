import { describe, expect, it } from 'vitest';
import { takeFlag, takeList, takeSwitch } from '../../../src/util/script-args.js';
import { takeAlsoUnheld, takeNeedOutside } from '../../../src/train/add-groups.js';

describe('script flags', () => {
  it('takes a flag and its value out, leaving the positional arguments', () => {
    const args = ['build/grid/g1', '--only', 'base,rtt-0', 'more.json', '--model', 'm.json'];
    expect(takeFlag(args, '--model')).toBe('m.json');
    expect(takeList(args, '--only')).toEqual(['base', 'rtt-0']);
    expect(args).toEqual(['build/grid/g1', 'more.json']);
    expect(takeFlag(args, '--model')).toBeUndefined();
    expect(takeList(args, '--absent')).toEqual([]);
  });

  it('takes a switch out without taking the argument after it', () => {
    const args = ['--also-unheld', 'a.json'];
    expect(takeSwitch(args, '--also-unheld')).toBe(true);
    expect(args).toEqual(['a.json']);
    expect(takeSwitch(args, '--also-unheld')).toBe(false);
  });

  it('opens a gate to unheld flows only with the gate it opens', () => {
    const args = ['--need-outside', '0.5', '--also-unheld', 'a.json'];
    const need = takeNeedOutside(args);
    expect(need).toBe(0.5);
    expect(takeAlsoUnheld(args, need)).toBe(true);
    expect(args).toEqual(['a.json']);
    expect(() => takeAlsoUnheld(['--also-unheld'], undefined)).toThrow(/give --need-outside too/);
    expect(takeAlsoUnheld(['a.json'], undefined)).toBe(false);
  });
});
