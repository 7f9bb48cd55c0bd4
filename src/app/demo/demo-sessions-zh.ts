// Demo conversations in Traditional Chinese: an order service's database migration and a trip to Kyoto.
import type { DemoSession } from "./demo-types.ts";

export const orderService: DemoSession = {
  id: "order-service-zh",
  endedDaysAgo: 1,
  user: "阿明",
  pace: 5,
  turns: [
    ["user", "訂單服務的 MySQL 查詢最近常常逾時，尖峰時段 p95 超過 2 秒。該從哪裡查起？"],
    [
      "assistant",
      "先開慢查詢日誌，找出最慢的前十條查詢，再用 EXPLAIN 看有沒有全表掃描。訂單表最常見的問題是 (user_id, created_at) 少了複合索引。",
    ],
    ["user", "查到了，確實是依使用者列出訂單的查詢在掃全表。加索引會鎖表嗎？訂單表有八千萬筆。"],
    [
      "assistant",
      "MySQL 8 的 ALTER TABLE ... ADD INDEX 預設是 online DDL，不會擋住讀寫，但會吃 I/O。建議用 gh-ost 在離峰時段做，可以隨時暫停。",
    ],
    ["user", "另外我們想加 Redis 快取訂單詳情，快取失效要怎麼處理？"],
    [
      "assistant",
      "寫入資料庫成功後再刪除快取（不要更新快取），並設定 10 分鐘的 TTL 當作保險。熱門訂單可以加上隨機的 TTL 偏移，避免同時失效造成雪崩。",
    ],
    ["user", "如果刪除快取失敗呢？"],
    [
      "assistant",
      "把失敗的刪除丟進重試佇列；真的一直失敗，TTL 也會在 10 分鐘內讓資料回到一致。對金額這類欄位，結帳流程一律直接讀資料庫。",
    ],
    ["user", "好，那下週先用 gh-ost 加索引，再上快取。"],
    ["assistant", "順序正確。加完索引後先觀察一天的 p95，確認改善後再上快取，這樣才知道各自的效果。"],
  ],
  summary: {
    key_decisions: [
      "Do: 用 gh-ost 在離峰時段為訂單表加上 (user_id, created_at) 複合索引",
      "Do: 寫入資料庫成功後刪除快取，並設定 10 分鐘 TTL 作為保險",
      "Don't: 結帳流程讀取快取中的金額，一律直接讀資料庫",
    ],
    past_discussions: [
      {
        topic: "訂單查詢逾時",
        description: "尖峰時段 p95 超過 2 秒，原因是依使用者列出訂單的查詢掃描全表。",
        direction: "加上複合索引後觀察一天的 p95。",
        last_discussed: "",
      },
    ],
    current_discussion: {
      topic: "訂單詳情的 Redis 快取",
      description: "採用寫入後刪除快取的策略，刪除失敗時進入重試佇列。",
      perspectives: "阿明希望下週就上線；建議先確認索引的效果再上快取。",
      direction: "下週先加索引，確認改善後再導入快取。",
    },
  },
};

export const kyotoTrip: DemoSession = {
  id: "kyoto-trip",
  endedDaysAgo: 12,
  user: "小雯",
  pace: 3,
  turns: [
    ["user", "我們下個月要去京都三天，第一次去，請幫我排行程。"],
    [
      "assistant",
      "第一天：清水寺、二年坂、三年坂，傍晚逛祇園花見小路。第二天：一早去嵐山竹林，再到天龍寺和渡月橋。第三天：清晨去伏見稻荷大社避開人潮，下午逛錦市場。",
    ],
    ["user", "交通要買什麼票比較划算？"],
    [
      "assistant",
      "市區以公車和地鐵為主，買 ICOCA 卡直接感應最方便。去嵐山可以搭 JR 嵯峨野線，去伏見稻荷搭 JR 奈良線，兩段都能用 ICOCA。",
    ],
    ["user", "住宿要選哪一區？"],
    ["assistant", "建議住在四條河原町或京都車站附近。河原町吃飯逛街方便；京都車站交通最方便，適合要搭 JR 的行程。"],
  ],
  summary: {
    key_decisions: ["Do: 行程以三天為主，伏見稻荷安排在第三天清晨", "Do: 交通使用 ICOCA 卡，不買周遊券"],
    past_discussions: [
      {
        topic: "京都三日行程",
        description: "第一天東山（清水寺、祇園），第二天嵐山，第三天伏見稻荷與錦市場。",
        direction: "依天氣調整第一天與第二天的順序。",
        last_discussed: "",
      },
    ],
    current_discussion: {
      topic: "住宿地點",
      description: "在四條河原町與京都車站之間選擇。",
      perspectives: "河原町生活機能好；京都車站搭 JR 方便。",
      direction: "小雯傾向住京都車站附近。",
    },
  },
};
