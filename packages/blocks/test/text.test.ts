import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { charLength, effectiveScheme, urlProblem, type UrlUse } from '@storefront/blocks';

const DISGUISED_JAVASCRIPT = [
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'JAVASCRIPT:alert(1)',
  ' javascript:alert(1)',
  '\tjavascript:alert(1)',
  '\njavascript:alert(1)',
  '\u0000javascript:alert(1)',
  '\u0001\u001fjavascript:alert(1)',
  '\u00a0javascript:alert(1)',
  '\u200bjavascript:alert(1)',
  '\ufeffjavascript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'java\rscript:alert(1)',
  'j\ta\nv\ra script:alert(1)',
  'javascript\t:alert(1)',
  '&#106;avascript:alert(1)',
  '&#x6A;avascript:alert(1)',
  'javascript&colon;alert(1)',
  'java&Tab;script:alert(1)',
];

describe('effectiveScheme', () => {
  test('sees through whitespace, control and format characters and character references', () => {
    for (const value of DISGUISED_JAVASCRIPT)
      assert.equal(effectiveScheme(value), 'javascript', JSON.stringify(value));
  });

  test('finds no scheme in relative URLs', () => {
    for (const value of ['/a', 'a/b', '#top', '?q=1', './x:y', '1http:x', 'javascript%3Aalert(1)']) {
      assert.equal(effectiveScheme(value), null, value);
    }
  });
});

describe('urlProblem', () => {
  const accepts = (use: UrlUse, values: string[]) => {
    for (const value of values)
      assert.equal(urlProblem(value, use), null, `${use} accepts ${JSON.stringify(value)}`);
  };
  const refuses = (use: UrlUse, values: string[], detail?: RegExp) => {
    for (const value of values) {
      const problem = urlProblem(value, use);
      assert.notEqual(problem, null, `${use} refuses ${JSON.stringify(value)}`);
      if (detail) assert.match(problem!, detail, JSON.stringify(value));
    }
  };

  test('javascript:, data: and vbscript: are refused for every use, however disguised', () => {
    for (const use of ['image', 'link', 'menu'] as const) {
      refuses(use, DISGUISED_JAVASCRIPT, /javascript: URL/);
      refuses(
        use,
        ['data:text/html,<script>alert(1)</script>', 'DATA:image/png;base64,AAAA', ' data:x'],
        /data: URL/,
      );
      refuses(use, ['vbscript:msgbox(1)', 'VBScript:x', 'vb\tscript:x'], /vbscript: URL/);
    }
  });

  test('links: http(s), mailto:, tel: and relative URLs', () => {
    accepts('link', [
      'https://shop.example/sale',
      'http://shop.example',
      'HTTPS://Shop.Example/a?b=c#d',
      'mailto:hello@shop.example',
      'tel:+1-555-0100',
      '/collections/sale',
      'collections/sale',
      '#newsletter',
      '?page=2',
      '../up',
    ]);
    refuses('link', ['ftp://files.example/x', 'file:///etc/passwd', 'blob:https://x/1', 'mailto:', 'tel:']);
    refuses(
      'link',
      ['//evil.example/x', '/\\evil.example', '\\\\evil.example'],
      /protocol-relative|backslash/,
    );
    refuses('link', ['https://user:secret@shop.example', 'https://shop.example@evil.example'], /user name/);
    refuses(
      'link',
      ['https:shop.example', 'https:/shop.example', 'https:///x', 'http://'],
      /https?:\/\/host/,
    );
    refuses('link', ['/a b', 'https://shop.example/a\tb', ' /a', '/a '], /spaces or control/);
    refuses('link', [''], /empty/);
  });

  test('images: https or relative only', () => {
    accepts('image', ['https://cdn.example/a.jpg', '/images/a.jpg', 'images/a.jpg', 'a.jpg?w=200']);
    refuses('image', ['http://cdn.example/a.jpg', 'mailto:x@y.z', 'tel:1'], /https URL or a relative URL/);
    refuses('image', ['//cdn.example/a.jpg'], /protocol-relative/);
  });

  test('menus: http(s) or a path starting with /', () => {
    accepts('menu', ['/', '/pages/about', '/search?q=x#r', 'https://blog.example', 'http://blog.example/a']);
    refuses(
      'menu',
      ['pages/about', '#top', 'mailto:x@y.z', 'tel:123', '//blog.example'],
      /path starting with|protocol/,
    );
  });
});

describe('text helpers', () => {
  test('charLength counts code points, like JSON Schema and PostgreSQL', () => {
    assert.equal(charLength('abc'), 3);
    assert.equal(charLength('😀😀'), 2);
    assert.equal(charLength(''), 0);
  });
});
