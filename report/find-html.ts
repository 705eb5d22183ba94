// The finding aids of index.html (issue 60): a page of a few hundred tests is tens of thousands of
// pixels tall, so a bar at its top filters every test card and row by verdict, area and requirement
// ID, and searches their titles. Plain inline script, no framework, nothing fetched. Each test's
// element carries what the bar matches on as data attributes; the choices are the values the run
// has, so a verdict added later appears in the bar without a change here.
import { escapeHtml } from './escape-html.ts';
import { severity, type TestRecord } from './results.ts';

/** Worst first (failed, blocked, ...), then in the run's order: the reader meets what needs them first. */
export function byReadingOrder(tests: readonly TestRecord[]): TestRecord[] {
  return tests.map((test, index) => ({ test, index })).sort((a, b) => severity(b.test.verdict) - severity(a.test.verdict) || a.index - b.index).map(({ test }) => test);
}

/** The attributes of a test's card or row that the bar filters on. */
export function testAttributes(test: TestRecord): string {
  const text = [test.titlePath.join(' › '), test.file, test.area, ...test.requirements].join(' ').toLowerCase();
  return ` data-test data-verdict="${escapeHtml(test.verdict)}" data-area="${escapeHtml(test.area)}" data-requirements="${escapeHtml(test.requirements.join(' '))}" data-text="${escapeHtml(text)}"`;
}

export const FIND_CSS = `
#find{position:sticky;top:0;z-index:2;background:#f6f7f9;border-bottom:1px solid #d6dae0;padding:8px 0;margin:8px 0;display:flex;flex-wrap:wrap;gap:8px;align-items:center}
#find select,#find input{font:inherit;padding:3px 6px}#find input[type=search]{min-width:14em}
[data-test][hidden]{display:none!important}
h2[id],h3[id]{scroll-margin-top:64px}
`;

function countsOf(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/** The bar: verdicts worst first with their counts, areas and requirement IDs as the run has them, and the search box. */
export function renderFindBar(tests: readonly TestRecord[]): string {
  if (tests.length === 0) return '';
  const verdicts = countsOf(byReadingOrder(tests).map((test) => test.verdict));
  const areas = countsOf(tests.map((test) => test.area).sort());
  const requirements = [...new Set(tests.flatMap((test) => test.requirements))].sort();
  const option = (value: string, count: number): string => `<option value="${escapeHtml(value)}">${escapeHtml(value)} (${count})</option>`;
  return `<form id="find" role="search" onsubmit="return false">
<label>Verdict <select id="find-verdict"><option value="">any (${tests.length})</option>${[...verdicts].map(([value, count]) => option(value, count)).join('')}</select></label>
<label>Area <select id="find-area"><option value="">any</option>${[...areas].map(([value, count]) => option(value, count)).join('')}</select></label>
<label>Requirement <input id="find-requirement" type="search" list="find-requirements" placeholder="TOK-01, or TOK" size="12"></label>
<datalist id="find-requirements">${requirements.map((id) => `<option value="${escapeHtml(id)}"></option>`).join('')}</datalist>
<label>Search <input id="find-text" type="search" placeholder="words of a test's title"></label>
<button type="reset">Clear</button>
<span class="muted" id="find-count" aria-live="polite"></span> <a href="#tests">the list</a>
</form>`;
}

// ES5 on purpose: the page is evidence kept for years and opened in whatever browser a reader has.
export const FIND_SCRIPT = `<script>(function(){
var form=document.getElementById('find');if(!form)return;
var field=function(id){return document.getElementById(id);};
var items=document.querySelectorAll('[data-test]');
var listed=document.querySelectorAll('#test-list [data-test]').length;
function apply(){
var verdict=field('find-verdict').value,area=field('find-area').value;
var requirement=field('find-requirement').value.trim().toUpperCase();
var words=field('find-text').value.toLowerCase().split(/\\s+/).filter(function(word){return word!=='';});
var shown=0;
for(var i=0;i<items.length;i++){
var item=items[i],ok=(verdict===''||item.getAttribute('data-verdict')===verdict)&&(area===''||item.getAttribute('data-area')===area);
if(ok&&requirement!==''){var ids=item.getAttribute('data-requirements').toUpperCase().split(' '),prefix=/-$/.test(requirement)?requirement:requirement+'-';
ok=ids.some(function(id){return id===requirement||id.indexOf(prefix)===0;});}
if(ok){var text=item.getAttribute('data-text');ok=words.every(function(word){return text.indexOf(word)!==-1;});}
item.hidden=!ok;
if(ok&&item.closest('#test-list'))shown++;}
field('find-count').textContent=shown===listed?listed+' tests':shown+' of '+listed+' tests match';}
form.addEventListener('input',apply);form.addEventListener('change',apply);
form.addEventListener('reset',function(event){event.preventDefault();var ids=['find-verdict','find-area','find-requirement','find-text'];for(var j=0;j<ids.length;j++)field(ids[j]).value='';apply();});
apply();})();</script>`;
