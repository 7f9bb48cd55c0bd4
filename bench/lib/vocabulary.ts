// Word lists for the synthetic chat corpus: function words, real content words by rough frequency, CJK phrases.

/** Function words, most frequent first (drawn with their own Zipf distribution). */
export const FUNCTION_WORDS = (
  "the to I and a it is you of that in we for this on be with can so not do but have are if what just " +
  "was at my they from as about or all your how there would will me when our an out up some no then by " +
  "any could should which also one more been still now only because did had into than here were its them"
).split(" ");

/** Real content words, roughly most frequent first; the long tail is filled with made-up words. */
export const CONTENT_WORDS = (
  "deploy server build error test change file config update issue fix check run data user release " +
  "service version branch request database query logs review cache setup script team api code " +
  "meeting deadline merge commit window monitor network access report client schedule latency backup " +
  "token session memory budget invoice refund customer payment migration rollback incident alert " +
  "dashboard metrics cluster node container image pipeline staging production endpoint timeout retry " +
  "queue worker job cron upload download storage bucket disk cpu thread process restart crash " +
  "patch security password login account permission role admin key certificate domain proxy gateway " +
  "route handler schema index table column record field value default option flag feature toggle " +
  "design draft document spec proposal plan estimate ticket sprint backlog priority bug regression " +
  "benchmark profile trace span sample histogram percentile throughput capacity quota limit scale " +
  "replica shard partition leader follower consensus snapshot restore archive export import format " +
  "parser compiler runtime library package dependency module plugin extension interface contract " +
  "vendor contract lawyer office travel flight hotel dinner lunch coffee weekend holiday birthday " +
  "doctor appointment invoice tax receipt mortgage rent landlord apartment moving furniture kitchen " +
  "garden recipe grocery bakery restaurant cinema concert ticket museum library bicycle train station " +
  "airport passport visa embassy weather storm snow rain sunny forecast temperature jacket umbrella " +
  "laptop keyboard monitor charger battery headphones printer router wifi bluetooth firmware driver " +
  "kubernetes postgres redis kafka nginx docker terraform grafana prometheus elasticsearch sqlite " +
  "javascript typescript python golang rust java kotlin swift react vue svelte webpack vite bun " +
  "onboarding interview candidate hiring salary promotion feedback retrospective standup demo launch " +
  "marketing campaign newsletter audience conversion funnel pricing discount subscription renewal churn " +
  "analytics experiment hypothesis cohort retention engagement signup activation revenue forecast " +
  "postmortem outage pager escalation oncall runbook playbook mitigation root cause timeline impact " +
  "encryption signature checksum hash compression serialization protocol websocket stream buffer socket " +
  "translation localization timezone calendar reminder notification email message thread channel mention " +
  "screenshot attachment spreadsheet presentation slide diagram whiteboard sketch mockup prototype wireframe"
).split(" ");

/** Chinese and Japanese chat sentences (original, everyday topics), mixed into a few messages. */
export const CJK_SENTENCES = [
  "我们今天下午要部署新的数据库服务器",
  "明天上午十点开会讨论迁移计划",
  "请帮我检查一下日志里的错误信息",
  "这个版本的性能比上个版本好很多",
  "周末我们去公园散步然后吃火锅",
  "客户反馈说登录页面加载太慢了",
  "备份已经完成，可以开始升级了",
  "下周三之前需要提交预算报告",
  "今日の午後に新しいデータベースサーバーをデプロイします",
  "明日の会議は東京オフィスで行います",
  "ログインできない問題を調査しています",
  "経理部に請求書を送ってください",
  "週末は引っ越しの準備で忙しいです",
  "ラーメンを食べに行きませんか",
  "バックアップが終わったら返信します",
  "サーバーのメモリ使用量が高すぎます",
];
