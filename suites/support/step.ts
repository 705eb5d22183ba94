// test.step at the running test's own location. Without a location Playwright captures and
// source-maps a stack of 50 frames for every step, the largest share of a worker's CPU when each
// call and each check is a step (issue 42).
import { test } from '@playwright/test';

export function testLocation(): { file: string; line: number; column: number } {
  const { file, line, column } = test.info();
  return { file, line, column };
}

export function step<T>(title: string, body: () => T | Promise<T>): Promise<T> {
  return test.step(title, body, { location: testLocation() });
}
