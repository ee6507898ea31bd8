// An answer as the person gave it: a text (newlines kept), Yes/No, a choice, or one row per form field.
import { answerRows } from '../lib/answers.ts';
import type { Question } from '../lib/model.ts';

export function AnswerView({ question }: { question: Pick<Question, 'answer' | 'schema' | 'sensitive'> }) {
  if (question.sensitive) {
    return <p className="answer-value hint">Sensitive: the answer is not stored or shown.</p>;
  }
  const rows = answerRows(question);
  if (rows === null) return null;
  const [first] = rows;
  if (rows.length === 1 && first && first.label === '') {
    return <p className="answer-value">{first.value}</p>;
  }
  return (
    <dl className="answer-rows">
      {rows.map((row, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows follow the answer's own key order
        <div key={i} className="answer-row">
          <dt>{row.label}</dt>
          <dd>{row.value}</dd>
        </div>
      ))}
    </dl>
  );
}
