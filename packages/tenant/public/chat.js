// The analytics chat: a question goes to the tenant's agent; the embed reports submitted, then
// completed or error. Answers are composed here from the agent's structured result, in the viewer's
// language, and rendered as text and a small table, never as markup. A locale change redraws them.
import { getJson } from './api.js';
import { h } from './dom.js';
import { barChart } from './charts.js';
import { columnLabel, fmt, isData, t, valueLabel } from './i18n.js';

const SUGGESTIONS = ['q1', 'q2', 'q3', 'q4', 'q5'];
// The questions a new chat opens with: ones the agent answers in every language, each with a breakdown
// (a chart and a table). A sign for each says what kind of answer it is (a ranking, a count, a trend).
export const STARTERS = [
  ['q1', '▤'],
  ['q2', '#'],
  ['q3', '★'],
  ['q4', '↗'],
];

export class Chat {
  constructor({ emit, session, compact = false }) {
    Object.assign(this, { emit, session });
    this.chatId = `chat-${crypto.randomUUID().slice(0, 8)}`;
    /** Each bot message and the function that draws it in the current language. */
    this.drawn = new Map();
    this.messages = h('ol', { class: 'messages', 'aria-live': 'polite' });
    this.input = h('input', { type: 'text', name: 'q', autocomplete: 'off', maxlength: 500 });
    this.button = h('button', { type: 'submit', class: 'btn primary' });
    this.suggestions = h('div', { class: 'suggestions' });
    // The empty state: what the agent can answer, and questions to start with. It leaves once a question
    // is asked (the suggestions under the messages take over) and comes back when the chat is cleared.
    this.welcome = h('div', { class: 'chat-welcome' });
    this.el = h(
      'section',
      { class: `chat${compact ? ' compact' : ''}` },
      this.welcome,
      this.messages,
      this.suggestions,
      h(
        'form',
        {
          class: 'ask',
          onsubmit: (e) => {
            e.preventDefault();
            this.ask(this.input.value);
          },
        },
        this.input,
        this.button,
      ),
    );
    this.relabel();
    this.empty(true);
  }

  /** Shows the welcome (an empty chat) or the suggestions row (a chat under way). */
  empty(on) {
    if (on) this.el.prepend(this.welcome);
    else this.welcome.remove();
    this.suggestions.hidden = on;
  }

  relabel() {
    this.input.placeholder = t('ask');
    this.input.setAttribute('aria-label', t('ask'));
    this.button.textContent = t('send');
    this.suggestions.replaceChildren(
      ...SUGGESTIONS.map((key) =>
        h('button', { type: 'button', class: 'chip suggestion', onclick: () => this.ask(t(key)) }, t(key)),
      ),
    );
    this.welcome.replaceChildren(
      h('div', { class: 'welcome-mark', 'aria-hidden': 'true' }, '✦'),
      h('h2', {}, t('welcome')),
      h('p', { class: 'muted' }, t('welcomeText')),
      h('p', { class: 'starters-label', id: `${this.chatId}-try` }, t('tryThese')),
      h(
        'div',
        { class: 'starters', role: 'group', 'aria-labelledby': `${this.chatId}-try` },
        STARTERS.map(([key, sign]) =>
          h(
            'button',
            { type: 'button', class: 'suggestion starter', onclick: () => this.ask(t(key)) },
            h('span', { class: 'starter-sign', 'aria-hidden': 'true' }, sign),
            h('span', {}, t(key)),
          ),
        ),
      ),
    );
    for (const [li, draw] of [...this.drawn]) {
      const next = draw();
      this.drawn.delete(li);
      this.drawn.set(next, draw);
      li.replaceWith(next);
    }
  }

  /** Appends (or, given `replacing`, swaps in) a bot message drawn by `draw`. */
  bot(draw, replacing) {
    const li = draw();
    this.drawn.set(li, draw);
    if (replacing) {
      this.drawn.delete(replacing);
      replacing.replaceWith(li);
    } else this.messages.append(li);
    return li;
  }

  clear() {
    this.messages.replaceChildren();
    this.drawn.clear();
    this.empty(true);
  }

  async ask(raw) {
    const query = raw.trim().slice(0, 500);
    if (!query) return;
    this.input.value = '';
    this.empty(false);
    this.messages.append(h('li', { class: 'msg user', translate: 'no' }, query));
    const pending = this.bot(() => h('li', { class: 'msg bot pending' }, t('thinking')));
    this.messages.scrollTop = this.messages.scrollHeight;
    this.emit('svc:event:ai-query', { query, status: 'submitted', chatId: this.chatId });
    const q = new URLSearchParams({ q: query });
    if (this.session !== undefined) q.set('session', this.session);
    try {
      const body = await getJson(`/embed/api/ask?${q}`);
      this.bot(() => this.answer(body), pending);
      this.emit('svc:event:ai-query', { query, status: 'completed', chatId: this.chatId, agentId: body.agentId });
    } catch (error) {
      const key = error.name === 'UnansweredQueryError' ? 'unanswered' : 'chatFailed';
      // A list item keeps its role (an alert would take the message out of the list); the list is a
      // polite live region, so the refusal is read out as every answer is.
      this.bot(() => h('li', { class: 'msg bot error' }, t(key)), pending);
      this.emit('svc:event:ai-query', { query, status: 'error', chatId: this.chatId });
    }
    this.messages.scrollTop = this.messages.scrollHeight;
  }

  answer({ table, measure, dimension, leader, orders, value }) {
    const n = fmt(orders);
    const format = (v, compact) => fmt(v, measure === 'orders' ? 'number' : 'currency', { compact });
    const m = t(`m.${measure}`);
    let text;
    if (!dimension)
      text = measure === 'orders' ? t('answerCount', { n }) : t('answerTotal', { measure: m, n, value: format(value) });
    else if (dimension === 'month') text = t('answerTrend', { measure: m, n });
    else
      text = t('answerGrouped', { measure: m, dim: columnLabel(dimension), leader: valueLabel(dimension, leader), n });
    if (!table) return h('li', { class: 'msg bot' }, text);
    const points = table.rows.map(([key, v]) => ({ key, value: v }));
    const data = isData(dimension);
    return h(
      'li',
      { class: 'msg bot' },
      h('p', {}, text),
      barChart(points, {
        format,
        label: text,
        keyLabel: (k) => valueLabel(dimension, k),
        keyIsData: data,
      }),
      h(
        'table',
        { class: 'data small' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            table.columns.map((c) => h('th', {}, columnLabel(c))),
          ),
        ),
        h(
          'tbody',
          {},
          table.rows.map(([k, v]) =>
            h(
              'tr',
              {},
              h('td', { translate: data ? 'no' : undefined }, valueLabel(dimension, k)),
              h('td', { class: 'num' }, format(v)),
            ),
          ),
        ),
      ),
    );
  }
}
